# A small GTK 4 form for the backend's toolkit tests (Debian python3-gi, gir1.2-gtk-4.0). GTK 4.8
# reports window-relative extents and no SHOWING below the frame, and answers "" to
# GetText(0, -1). "Open dialog" presents a transient dialog window.
import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gtk


def activate(app):
    win = Gtk.ApplicationWindow(application=app, title="GTK4 Form")
    win.set_default_size(320, 200)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
    status = Gtk.Label(label="Status: idle")
    box.append(status)
    entry = Gtk.Entry()
    entry.set_text("hello gtk4")
    box.append(entry)
    submit = Gtk.Button(label="Submit")
    submit.connect("clicked", lambda *_: status.set_text("Status: submitted " + entry.get_text()))
    box.append(submit)

    dialog = Gtk.Window(title="GTK4 Dialog", transient_for=win)
    dialog.set_default_size(200, 80)
    dialog.set_hide_on_close(True)
    close = Gtk.Button(label="Close dialog")
    close.connect("clicked", lambda *_: dialog.hide())
    dialog.set_child(close)
    opener = Gtk.Button(label="Open dialog")
    opener.connect("clicked", lambda *_: dialog.present())
    box.append(opener)

    win.set_child(box)
    win.present()


app = Gtk.Application(application_id="org.mcec.Gtk4Form")
app.connect("activate", activate)
app.run(None)
