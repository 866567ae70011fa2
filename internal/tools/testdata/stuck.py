#!/usr/bin/python3
"""A GTK 3 window that is mapped before its main loop runs, which starts only after as many
seconds as argv[1] says: its accessibility bridge is loaded but cannot answer yet, as a toolkit
that is still starting up. The launch tests use it for the tree-not-ready path."""
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 30


win = Gtk.Window(title="mcec stuck")
win.set_default_size(200, 100)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gdk.Display.get_default().flush()  # the map request reaches the window manager now
time.sleep(seconds)
Gtk.main()
