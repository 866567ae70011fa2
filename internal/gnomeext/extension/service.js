// The service of mcec's GNOME Shell extension, shared by both its variants: legacy.js (GNOME
// 42-44, legacy imports) and module.js (GNOME 45 and later, ES modules). gnomeext.Install puts
// it in place of the marker in the variant the Shell loads; that variant binds Clutter, Gio,
// GLib, Meta, Shell, St, Main (ui/main.js) and Keyboard (ui/status/keyboard.js) first, and calls
// startService from enable.
//
// GNOME Shell lets no ordinary program list windows with their places, read pixels or send
// input; this service does it from inside the Shell, on the session bus as org.mcec.Shell, for
// one caller: the executable whose path `mcec setup gnome` wrote to allowed-exe beside this
// file. Written for mcec's internal/platform/wayland (gnome.go); the interface below is the
// whole contract. Where the Shell's API changed after 43 the service asks what is there
// (defaultSeat, maximize) rather than knowing versions.

const IFACE = `<node>
  <interface name="org.mcec.Shell">
    <property name="Version" type="u" access="read"/>
    <method name="Windows"><arg type="s" direction="out" name="json"/></method>
    <method name="WindowOp">
      <arg type="t" direction="in" name="id"/><arg type="s" direction="in" name="op"/>
      <arg type="i" direction="in" name="x"/><arg type="i" direction="in" name="y"/>
      <arg type="i" direction="in" name="width"/><arg type="i" direction="in" name="height"/>
      <arg type="b" direction="out" name="found"/>
    </method>
    <method name="Screenshot">
      <arg type="i" direction="in" name="x"/><arg type="i" direction="in" name="y"/>
      <arg type="i" direction="in" name="width"/><arg type="i" direction="in" name="height"/>
      <arg type="ay" direction="out" name="png"/>
    </method>
    <method name="PointerMotion"><arg type="d" direction="in" name="x"/><arg type="d" direction="in" name="y"/></method>
    <method name="PointerButton"><arg type="u" direction="in" name="button"/><arg type="b" direction="in" name="pressed"/></method>
    <method name="PointerScroll"><arg type="i" direction="in" name="dx"/><arg type="i" direction="in" name="dy"/></method>
    <method name="Key"><arg type="u" direction="in" name="evdev"/><arg type="b" direction="in" name="pressed"/></method>
    <method name="Layout"><arg type="s" direction="out" name="source"/></method>
    <method name="ClipboardGet"><arg type="s" direction="out" name="text"/></method>
    <method name="ClipboardSet"><arg type="s" direction="in" name="text"/></method>
    <signal name="WindowsChanged"/>
  </interface>
</node>`;

const VERSION = 1;

// The kinds of window an application shows: not the desktop, docks, menus or tooltips.
const SHOWN = [Meta.WindowType.NORMAL, Meta.WindowType.DIALOG, Meta.WindowType.MODAL_DIALOG, Meta.WindowType.UTILITY];
// The popups of those windows (open menus, lists, tooltips): listed with popup set, so that
// mcec can place their objects.
const POPUPS = [Meta.WindowType.MENU, Meta.WindowType.DROPDOWN_MENU, Meta.WindowType.POPUP_MENU, Meta.WindowType.COMBO,
    Meta.WindowType.TOOLTIP];

function rect(r) {
    return { x: r.x, y: r.y, width: r.width, height: r.height };
}

// defaultSeat is the seat virtual devices are made on: Clutter.get_default_backend() until
// GNOME 50 (51 removed it), the stage's context's backend from mutter 44 on.
function defaultSeat() {
    const backend = Clutter.get_default_backend ? Clutter.get_default_backend() : global.stage.context.get_backend();
    return backend.get_default_seat();
}

// maximizedBoth and maximizedAny read the state through get_maximized() where mutter has it
// (to 48), else is_maximized(), else the maximized-horizontally and -vertically properties.
function maximizedBoth(w) {
    if (w.get_maximized)
        return w.get_maximized() === Meta.MaximizeFlags.BOTH;
    if (w.is_maximized)
        return w.is_maximized();
    return Boolean(w.maximized_horizontally && w.maximized_vertically);
}

function maximizedAny(w) {
    if (w.get_maximized)
        return w.get_maximized() !== 0;
    if (w.is_maximized)
        return w.is_maximized();
    return Boolean(w.maximized_horizontally || w.maximized_vertically);
}

// maximize and unmaximize take Meta.MaximizeFlags where mutter still has them.
function maximize(w) {
    if (Meta.MaximizeFlags)
        w.maximize(Meta.MaximizeFlags.BOTH);
    else
        w.maximize();
}

function unmaximize(w) {
    if (Meta.MaximizeFlags)
        w.unmaximize(Meta.MaximizeFlags.BOTH);
    else
        w.unmaximize();
}

class Service {
    // private_: the Shell is mcec's own private desktop, which behaves as mcec's other desktops
    // do: no Overview at start, and a new window gets the focus.
    constructor(allowedExe, private_) {
        this._allowedExe = allowedExe;
        this._allowed = new Map(); // sender → bool, decided once per connection
        this._dbus = Gio.DBusExportedObject.wrapJSObject(IFACE, this);
        this._dbus.export(Gio.DBus.session, '/org/mcec/Shell');
        this._owner = Gio.DBus.session.own_name('org.mcec.Shell', Gio.BusNameOwnerFlags.NONE, null, null);
        const seat = defaultSeat();
        this._pointer = seat.create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE);
        this._keyboard = seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
        this._pressedButtons = new Set();
        this._pressedKeys = new Set();
        this._signals = [];
        this._windowSignals = new Map();
        this._pending = 0;
        // A window is listed once it has been shown: mutter places a new window as it maps it,
        // and before that reports a place it leaves at once.
        this._shownWindows = new Set();
        this._follow(global.display, 'window-created', (_d, w) => {
            this._track(w);
            const id = w.connect('shown', () => {
                w.disconnect(id);
                this._shownWindows.add(w);
                this._changed();
                if (private_ && SHOWN.includes(w.get_window_type()))
                    Main.activateWindow(w, global.get_current_time());
            });
        });
        if (private_) {
            if (Main.layoutManager._startingUp)
                this._follow(Main.layoutManager, 'startup-complete', () => Main.overview.hide());
            else
                Main.overview.hide();
        }
        this._follow(global.display, 'notify::focus-window', () => this._changed());
        this._follow(global.display, 'restacked', () => this._changed());
        for (const a of global.get_window_actors()) {
            this._track(a.meta_window);
            this._shownWindows.add(a.meta_window);
        }
    }

    get Version() {
        return VERSION;
    }

    _follow(obj, signal, fn) {
        this._signals.push([obj, obj.connect(signal, fn)]);
    }

    _track(w) {
        const ids = [];
        // One at a time: a signal a later mutter dropped must not cost the window its others.
        for (const s of ['position-changed', 'size-changed', 'notify::title', 'notify::minimized', 'notify::maximized-horizontally',
            'notify::fullscreen']) {
            try {
                ids.push(w.connect(s, () => this._changed()));
            } catch (e) {
                console.warn(`mcec: window signal ${s}: ${e}`);
            }
        }
        ids.push(w.connect('unmanaged', () => {
            for (const id of this._windowSignals.get(w) || [])
                w.disconnect(id);
            this._windowSignals.delete(w);
            this._shownWindows.delete(w);
            this._changed();
        }));
        this._windowSignals.set(w, ids);
    }

    // _changed emits WindowsChanged once per burst of changes.
    _changed() {
        if (this._pending)
            return;
        this._pending = GLib.idle_add(GLib.PRIORITY_DEFAULT_IDLE, () => {
            this._pending = 0;
            this._dbus.emit_signal('WindowsChanged', null);
            return GLib.SOURCE_REMOVE;
        });
    }

    // _check refuses every caller but the allowed executable.
    _check(invocation) {
        const sender = invocation.get_sender();
        let ok = this._allowed.get(sender);
        if (ok === undefined) {
            ok = false;
            try {
                const reply = Gio.DBus.session.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                    'GetConnectionUnixProcessID', new GLib.Variant('(s)', [sender]), null, Gio.DBusCallFlags.NONE, 1000, null);
                const [pid] = reply.deep_unpack();
                ok = this._allowedExe !== '' && GLib.file_read_link(`/proc/${pid}/exe`) === this._allowedExe;
            } catch (e) {
                ok = false;
            }
            this._allowed.set(sender, ok);
        }
        if (!ok)
            invocation.return_dbus_error('org.mcec.Shell.Error.NotAllowed',
                'only the mcec executable `mcec setup gnome` named may call this extension');
        return ok;
    }

    _windows() {
        return global.get_window_actors().map(a => a.meta_window)
            .filter(w => SHOWN.includes(w.get_window_type()) && this._shownWindows.has(w));
    }

    _popups() {
        return global.get_window_actors().map(a => a.meta_window).filter(w => POPUPS.includes(w.get_window_type()));
    }

    WindowsAsync(params, invocation) {
        if (!this._check(invocation))
            return;
        const focus = global.display.get_focus_window();
        const popups = new Set(this._popups());
        const windows = global.get_window_actors().map(a => a.meta_window).filter(w => popups.has(w) ||
            SHOWN.includes(w.get_window_type()) && this._shownWindows.has(w));
        const out = windows.map(w => {
            const parent = w.get_transient_for();
            return {
                id: String(w.get_id()), title: w.get_title() || '', wmClass: w.get_wm_class() || '', pid: w.get_pid(),
                frame: rect(w.get_frame_rect()), buffer: rect(w.get_buffer_rect()),
                minimized: w.minimized, maximized: maximizedBoth(w), fullscreen: w.is_fullscreen(),
                focused: w === focus, modal: w.get_window_type() === Meta.WindowType.MODAL_DIALOG,
                dialog: w.get_window_type() === Meta.WindowType.DIALOG || w.get_window_type() === Meta.WindowType.MODAL_DIALOG,
                transientFor: parent ? String(parent.get_id()) : '',
                x11: w.get_client_type() === Meta.WindowClientType.X11,
                popup: popups.has(w),
            };
        });
        invocation.return_value(new GLib.Variant('(s)', [JSON.stringify(out)]));
    }

    WindowOpAsync([id, op, x, y, width, height], invocation) {
        if (!this._check(invocation))
            return;
        const w = this._windows().find(v => String(v.get_id()) === String(id));
        if (!w) {
            invocation.return_value(new GLib.Variant('(b)', [false]));
            return;
        }
        const now = global.get_current_time();
        switch (op) {
        case 'activate':
            if (Main.overview.visible) {
                // Input sent while the Overview slides away lands on the Overview: answer once
                // it is gone.
                let answered = false;
                const answer = () => {
                    if (answered)
                        return;
                    answered = true;
                    Main.overview.disconnect(id);
                    if (timeout)
                        GLib.source_remove(timeout);
                    invocation.return_value(new GLib.Variant('(b)', [true]));
                };
                const id = Main.overview.connect('hidden', answer);
                // Never wait for longer than the animation could take.
                let timeout = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 2000, () => {
                    timeout = 0;
                    answer();
                    return GLib.SOURCE_REMOVE;
                });
                Main.activateWindow(w, now);
                return;
            }
            Main.activateWindow(w, now);
            break;
        case 'minimize': w.minimize(); break;
        case 'maximize': if (w.minimized) w.unminimize(); maximize(w); break;
        case 'restore':
            if (w.minimized) w.unminimize();
            if (w.is_fullscreen()) w.unmake_fullscreen();
            if (maximizedAny(w)) unmaximize(w);
            break;
        case 'move': w.move_frame(true, x, y); break;
        case 'geometry': w.move_resize_frame(true, x, y, width, height); break;
        default:
            invocation.return_dbus_error('org.mcec.Shell.Error.UnknownOp', `unknown window operation ${op}`);
            return;
        }
        invocation.return_value(new GLib.Variant('(b)', [true]));
    }

    ScreenshotAsync([x, y, width, height], invocation) {
        if (!this._check(invocation))
            return;
        const shot = new Shell.Screenshot();
        const stream = Gio.MemoryOutputStream.new_resizable();
        shot.screenshot_area(x, y, width, height, stream, (_o, res) => {
            try {
                shot.screenshot_area_finish(res);
                stream.close(null);
                const png = GLib.Variant.new_from_bytes(new GLib.VariantType('ay'), stream.steal_as_bytes(), true);
                invocation.return_value(GLib.Variant.new_tuple([png]));
            } catch (e) {
                invocation.return_dbus_error('org.mcec.Shell.Error.Capture', String(e));
            }
        });
    }

    PointerMotionAsync([x, y], invocation) {
        if (!this._check(invocation))
            return;
        this._pointer.notify_absolute_motion(GLib.get_monotonic_time(), x, y);
        invocation.return_value(null);
    }

    PointerButtonAsync([button, pressed], invocation) {
        if (!this._check(invocation))
            return;
        this._pointer.notify_button(GLib.get_monotonic_time(), button,
            pressed ? Clutter.ButtonState.PRESSED : Clutter.ButtonState.RELEASED);
        if (pressed)
            this._pressedButtons.add(button);
        else
            this._pressedButtons.delete(button);
        invocation.return_value(null);
    }

    PointerScrollAsync([dx, dy], invocation) {
        if (!this._check(invocation))
            return;
        const t = GLib.get_monotonic_time();
        const send = (n, plus, minus) => {
            for (let i = 0; i < Math.abs(n); i++)
                this._pointer.notify_discrete_scroll(t, n > 0 ? plus : minus, Clutter.ScrollSource.WHEEL);
        };
        send(dy, Clutter.ScrollDirection.DOWN, Clutter.ScrollDirection.UP);
        send(dx, Clutter.ScrollDirection.RIGHT, Clutter.ScrollDirection.LEFT);
        invocation.return_value(null);
    }

    KeyAsync([code, pressed], invocation) {
        if (!this._check(invocation))
            return;
        this._keyboard.notify_key(GLib.get_monotonic_time(), code, pressed ? Clutter.KeyState.PRESSED : Clutter.KeyState.RELEASED);
        if (pressed)
            this._pressedKeys.add(code);
        else
            this._pressedKeys.delete(code);
        invocation.return_value(null);
    }

    // LayoutAsync answers the current input source as "type:id" ("xkb:us", "xkb:de+nodeadkeys",
    // "ibus:…"): keys go through it.
    LayoutAsync(params, invocation) {
        if (!this._check(invocation))
            return;
        const src = Keyboard.getInputSourceManager().currentSource;
        invocation.return_value(new GLib.Variant('(s)', [src ? `${src.type}:${src.id}` : '']));
    }

    ClipboardGetAsync(params, invocation) {
        if (!this._check(invocation))
            return;
        St.Clipboard.get_default().get_text(St.ClipboardType.CLIPBOARD, (_c, text) => {
            invocation.return_value(new GLib.Variant('(s)', [text || '']));
        });
    }

    ClipboardSetAsync([text], invocation) {
        if (!this._check(invocation))
            return;
        St.Clipboard.get_default().set_text(St.ClipboardType.CLIPBOARD, text);
        invocation.return_value(null);
    }

    destroy() {
        const t = GLib.get_monotonic_time();
        for (const b of this._pressedButtons)
            this._pointer.notify_button(t, b, Clutter.ButtonState.RELEASED);
        for (const k of this._pressedKeys)
            this._keyboard.notify_key(t, k, Clutter.KeyState.RELEASED);
        if (this._pending)
            GLib.source_remove(this._pending);
        for (const [obj, id] of this._signals)
            obj.disconnect(id);
        for (const [w, ids] of this._windowSignals)
            ids.forEach(id => w.disconnect(id));
        Gio.DBus.session.unown_name(this._owner);
        this._dbus.unexport();
    }
}

// startService serves the interface for the executable named in dir/allowed-exe (none: every
// call is refused); a private-desktop file there marks mcec's own desktop.
function startService(dir) {
    let allowed = '';
    try {
        const [, bytes] = GLib.file_get_contents(GLib.build_filenamev([dir, 'allowed-exe']));
        allowed = new TextDecoder().decode(bytes).trim();
    } catch (e) {
        console.warn(`mcec: no allowed-exe beside the extension (${e}): every call is refused; run \`mcec setup gnome\``);
    }
    return new Service(allowed, GLib.file_test(GLib.build_filenamev([dir, 'private-desktop']), GLib.FileTest.EXISTS));
}
