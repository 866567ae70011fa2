# A GTK 3 window with a password entry (visibility off) and a plain entry, for
# TestPasswordMaskedLive. Needs python3-gi and gir1.2-gtk-3.0.
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk

win = Gtk.Window(title="mcec password test")
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
secret = Gtk.Entry()
secret.set_visibility(False)
secret.set_text("hunter2")
box.add(secret)
plain = Gtk.Entry()
plain.set_text("visible text")
box.add(plain)
win.add(box)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
