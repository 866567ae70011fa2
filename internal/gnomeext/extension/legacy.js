// mcec's GNOME Shell extension for GNOME 42-44 (legacy imports). The service it serves is
// service.js, which gnomeext.Install puts in place of the marker below.
'use strict';

const { Clutter, Gio, GLib, Meta, Shell, St } = imports.gi;
const ExtensionUtils = imports.misc.extensionUtils;
const Main = imports.ui.main;
const Keyboard = imports.ui.status.keyboard;

/* mcec: service.js */

let service = null;

function init() {
}

function enable() {
    service = startService(ExtensionUtils.getCurrentExtension().path);
}

function disable() {
    service?.destroy();
    service = null;
}
