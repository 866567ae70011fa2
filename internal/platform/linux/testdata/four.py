# Four buttons whose clicks append their letters to the window title, for the first-click test.
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk
win = Gtk.Window(title="four:")
box = Gtk.Box(spacing=4)
def pressed(b):
    win.set_title(win.get_title() + b.get_label())
for n in ["A", "B", "C", "D"]:
    b = Gtk.Button(label=n); b.connect("clicked", pressed); box.pack_start(b, True, True, 0)
win.add(box); win.connect("destroy", Gtk.main_quit); win.show_all(); Gtk.main()
