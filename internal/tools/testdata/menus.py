#!/usr/bin/python3
"""A GTK 3 window with a menu bar for invoke's delivery tests. GTK 3 menus offer only a click
action. File > Open and File > Save set the status label; Help > About runs an About dialog in
a nested main loop (Gtk.Dialog.run), the case that strands an AT-SPI DoAction; the push button
"Run modal" does the same with a message dialog. A combo box ("Red"/"Green"/"Blue"), a check
button "Remember" and an entry complete the form.
"""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

win = Gtk.Window(title="mcec menus")
win.set_default_size(360, 240)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
status = Gtk.Label(label="Status: idle")

bar = Gtk.MenuBar()


def menu(title, items):
    top = Gtk.MenuItem(label=title)
    sub = Gtk.Menu()
    for label, handler in items:
        item = Gtk.MenuItem(label=label)
        item.connect("activate", handler)
        sub.append(item)
    top.set_submenu(sub)
    bar.append(top)


def about(_):
    d = Gtk.AboutDialog(transient_for=win, modal=True, program_name="mcec menus")
    d.set_title("About mcec menus")
    d.run()
    d.destroy()
    status.set_text("Status: about closed")


def run_modal(_):
    d = Gtk.MessageDialog(transient_for=win, modal=True, message_type=Gtk.MessageType.INFO,
                          buttons=Gtk.ButtonsType.OK, text="mcec modal")
    d.set_title("mcec modal dialog")
    d.run()
    d.destroy()
    status.set_text("Status: modal closed")


menu("File", [("Open", lambda _: status.set_text("Status: opened")),
              ("Save", lambda _: status.set_text("Status: saved"))])
menu("Help", [("About", about)])
box.pack_start(bar, False, False, 0)
box.pack_start(status, False, False, 0)
combo = Gtk.ComboBoxText()
for c in ("Red", "Green", "Blue"):
    combo.append_text(c)
combo.set_active(0)
combo.connect("changed", lambda c: status.set_text("Status: colour " + c.get_active_text()))
box.pack_start(combo, False, False, 0)
check = Gtk.CheckButton(label="Remember")
check.connect("toggled", lambda c: status.set_text("Status: remember %s" % c.get_active()))
box.pack_start(check, False, False, 0)
entry = Gtk.Entry()
entry.set_text("hello")
box.pack_start(entry, False, False, 0)
button = Gtk.Button(label="Run modal")
button.connect("clicked", run_modal)
box.pack_start(button, False, False, 0)
win.add(box)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
