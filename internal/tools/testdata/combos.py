#!/usr/bin/python3
"""A combo box for invoke's select tests (argv: qt|gtk3): entries Basic, Pro, Team, Locked. The
application refuses Locked (it puts Basic back at once, as a validating form would). It writes
what it chose into its window title, "mcec combo plan=NAME", so a test reads the choice back
through X, independently of the accessibility tree."""
import sys

ENTRIES = ["Basic", "Pro", "Team", "Locked"]

if sys.argv[1] == "qt":
    from PyQt5 import QtWidgets

    app = QtWidgets.QApplication(sys.argv[:1])
    win = QtWidgets.QWidget()
    win.resize(360, 160)
    win.move(40, 40)
    lay = QtWidgets.QFormLayout(win)
    combo = QtWidgets.QComboBox()
    combo.addItems(ENTRIES)
    combo.setAccessibleName("Plan")

    def changed(i):
        if ENTRIES[i] == "Locked":
            combo.setCurrentIndex(0)
            return
        win.setWindowTitle("mcec combo plan=" + ENTRIES[i])

    combo.currentIndexChanged.connect(changed)
    lay.addRow("Plan", combo)
    win.setWindowTitle("mcec combo plan=Basic")
    win.show()
    sys.exit(app.exec_())
else:
    import gi

    gi.require_version("Gtk", "3.0")
    from gi.repository import Gtk  # noqa: E402

    win = Gtk.Window(title="mcec combo plan=Basic")
    win.set_default_size(360, 160)
    win.move(40, 40)
    combo = Gtk.ComboBoxText()
    for e in ENTRIES:
        combo.append_text(e)
    combo.set_active(0)

    def changed(c):
        name = c.get_active_text()
        if name == "Locked":
            c.set_active(0)
            return
        win.set_title("mcec combo plan=" + name)

    combo.connect("changed", changed)
    box = Gtk.Box(spacing=6, margin=12)
    box.pack_start(Gtk.Label(label="Plan"), False, False, 0)
    box.pack_start(combo, True, True, 0)
    win.add(box)
    win.connect("destroy", Gtk.main_quit)
    win.show_all()
    Gtk.main()
