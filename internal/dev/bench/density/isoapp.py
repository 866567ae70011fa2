#!/usr/bin/python3
"""The density bench's GTK 3 app: one window titled "mcec-density <instance id>" (MCEC_INSTANCE,
which every program in a provisioned instance inherits) with one named, focused entry.

Each instance of the fleet runs one; typing into an instance must change only its own entry.
"""
import os

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

win = Gtk.Window(title="mcec-density " + os.environ.get("MCEC_INSTANCE", "?"))
win.set_default_size(240, 80)
entry = Gtk.Entry()
entry.get_accessible().set_name("isolation-entry")
win.add(entry)
win.connect("destroy", Gtk.main_quit)
win.show_all()
entry.grab_focus()
Gtk.main()
