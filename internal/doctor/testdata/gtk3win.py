# A plain GTK 3 window titled by argv[1] (Debian python3-gi, gir1.2-gtk-3.0).
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk

win = Gtk.Window(title=sys.argv[1])
win.add(Gtk.Button(label="Press"))
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
