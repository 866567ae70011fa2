// mcec's GNOME Shell extension for GNOME 45 and later (ES modules). The service it serves is
// service.js, which gnomeext.Install puts in place of the marker below.
import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Meta from 'gi://Meta';
import Shell from 'gi://Shell';
import St from 'gi://St';

import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import * as Keyboard from 'resource:///org/gnome/shell/ui/status/keyboard.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

/* mcec: service.js */

export default class McecExtension extends Extension {
    enable() {
        this._service = startService(this.path);
    }

    disable() {
        this._service?.destroy();
        this._service = null;
    }
}
