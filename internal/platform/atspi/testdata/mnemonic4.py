"""GTK 4 widgets whose labels use underline mnemonics, for mnemonic names (mnemonic.go): GTK 4.8
names the buttons "_Mnemo Mnemo" and "7 7" and the check box "_Check me"."""
import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gtk

app = Gtk.Application(application_id="org.mcec.Mnemonic4")


def activate(a):
    w = Gtk.ApplicationWindow(application=a, title="Mnemonic4")
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    box.append(Gtk.Button(label="Plain"))
    box.append(Gtk.Button.new_with_mnemonic("_Mnemo"))
    box.append(Gtk.Button(label="7", use_underline=True))
    box.append(Gtk.CheckButton.new_with_mnemonic("_Check me"))
    w.set_child(box)
    w.present()


app.connect("activate", activate)
app.run()
