# A GTK 3 window for the action tests (TestModal*, TestActStale). Needs python3-gi and
# gir1.2-gtk-3.0.
#
# "Open dialog" runs Gtk.Dialog.run(), a nested main loop, from its click handler: while it
# runs the application answers no AT-SPI call. SIGUSR1 answers the open dialog with CLOSE
# from inside the application, so a test can end the loop without AT-SPI. "Remove me"
# destroys itself, so its accessible object dies. "Work slowly" keeps the main loop busy for a
# second, without a nested loop: a slow application, not a modal one.
#
# With --wait FIFO the program waits for a writer to open and close FIFO before it loads
# GTK, so a test can start watching the process before its application registers on the
# AT-SPI bus.
import signal
import sys
import time

if "--wait" in sys.argv:
    with open(sys.argv[sys.argv.index("--wait") + 1]) as fifo:
        fifo.read()

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk

win = Gtk.Window(title="mcec modal test")
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
status = Gtk.Label(label="no response yet")
dialog = None


def open_dialog(_button):
    global dialog
    dialog = Gtk.Dialog(title="mcec modal dialog", transient_for=win, modal=True)
    dialog.add_button("Dismiss", Gtk.ResponseType.CLOSE)
    dialog.get_content_area().add(Gtk.Label(label="a modal question"))
    dialog.show_all()
    response = dialog.run()
    dialog.destroy()
    dialog = None
    status.set_text("response %d" % response)


def on_usr1():
    if dialog is not None:
        dialog.response(Gtk.ResponseType.CLOSE)
    return GLib.SOURCE_CONTINUE


opener = Gtk.Button(label="Open dialog")
opener.connect("clicked", open_dialog)
box.add(opener)
box.add(status)
def work_slowly(_button):
    time.sleep(1.0)
    status.set_text("worked")


slow = Gtk.Button(label="Work slowly")
slow.connect("clicked", work_slowly)
box.add(slow)
doomed = Gtk.Button(label="Remove me")
doomed.connect("clicked", lambda b: b.destroy())
box.add(doomed)
expander = Gtk.Expander(label="Details")
expander.add(Gtk.Label(label="more details"))
box.add(expander)
win.add(box)
win.connect("destroy", Gtk.main_quit)
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, on_usr1)
win.show_all()
Gtk.main()
