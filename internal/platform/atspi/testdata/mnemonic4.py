"""GTK 4 widgets whose labels use underline mnemonics or markup, for mnemonic names (mnemonic.go):
GTK 4.8 names the buttons "_Mnemo Mnemo" and "7 7" and the check box "_Check me", and leaves the
button whose label is "x<sup>2</sup>" nameless."""
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
    square = Gtk.Label()
    square.set_markup("x<sup>2</sup>")
    markup = Gtk.Button()
    markup.set_child(square)
    box.append(markup)
    w.set_child(box)
    w.present()


app.connect("activate", activate)
app.run()
