#!/usr/bin/python3
"""A GTK 3 window that changes itself when told to on stdin, for TestMirrorMatchesFreshWalks: the
mirror's answers after each change are compared with fresh walks.

Commands (one per line), each acknowledged with "ok <command>" once done on the main loop:
add, remove (a list row), tadd, tremove, tedit (a tree view row), rename (the label), toggle (the check button), value (the scale),
text (the entry), hide, show, grow (the button: taller, so what lies below moves), move (the window), scroll (the list), quit.
lagadd adds a list row while the main loop is kept busy above idle priority for a second, so the
accessibility bridge's cache (filled from an idle) lags the tree; "settled" follows once it is free.
"""
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

win = Gtk.Window(title="mcec mutate gtk")
win.set_default_size(360, 420)
win.move(40, 40)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4)
label = Gtk.Label(label="Status 0")
box.pack_start(label, False, False, 0)
check = Gtk.CheckButton(label="Enabled")
box.pack_start(check, False, False, 0)
scale = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1)
scale.set_value(10)
box.pack_start(scale, False, False, 0)
entry = Gtk.Entry()
entry.set_text("alpha")
box.pack_start(entry, False, False, 0)
button = Gtk.Button(label="Apply")
box.pack_start(button, False, False, 0)
listbox = Gtk.ListBox()
rows = 0


def add_row():
    global rows
    rows += 1
    listbox.add(Gtk.Label(label="row %d" % rows))
    listbox.show_all()


for _ in range(30):
    add_row()
# A tree view too: its rows are objects the view makes on demand (it manages its descendants).
store = Gtk.ListStore(str)
for i in range(8):
    store.append(["cell %d" % i])
view = Gtk.TreeView(model=store)
view.append_column(Gtk.TreeViewColumn("Item", Gtk.CellRendererText(), text=0))
box.pack_start(view, False, False, 0)
scroll = Gtk.ScrolledWindow()
scroll.set_min_content_height(150)
scroll.add(listbox)
box.pack_start(scroll, True, True, 0)
win.add(box)
win.connect("destroy", Gtk.main_quit)
win.show_all()
count = 0


def command(source, condition):
    global count
    line = source.readline()
    if not line:
        Gtk.main_quit()
        return False
    cmd = line.strip()
    count += 1
    if cmd == "add":
        add_row()
    elif cmd == "remove":
        kids = listbox.get_children()
        if kids:
            listbox.remove(kids[-1])
    elif cmd == "rename":
        label.set_text("Status %d" % count)
    elif cmd == "toggle":
        check.set_active(not check.get_active())
    elif cmd == "value":
        scale.set_value(scale.get_value() + 7)
    elif cmd == "text":
        entry.set_text("text %d" % count)
    elif cmd == "hide":
        button.hide()
    elif cmd == "show":
        button.show()
    elif cmd == "move":
        x, y = win.get_position()
        win.move(x + 37, y + 23)
    elif cmd == "tadd":
        store.append(["cell %d" % count])
    elif cmd == "tremove":
        store.remove(store.get_iter(len(store) - 1))
    elif cmd == "tedit":
        store[0][0] = "edited %d" % count
    elif cmd == "grow":
        h = button.get_allocated_height()
        button.set_size_request(-1, h + 12)
    elif cmd == "scroll":
        adj = scroll.get_vadjustment()
        adj.set_value(adj.get_value() + 60)
    elif cmd == "lagadd":
        add_row()
        until = time.monotonic() + 1.0

        def busy():
            # Above the bridge's cache idle (G_PRIORITY_DEFAULT_IDLE), below D-Bus and layout.
            if time.monotonic() < until:
                time.sleep(0.002)
                return True
            GLib.idle_add(settled)
            return False

        def settled():
            print("settled", flush=True)
            return False

        GLib.idle_add(busy, priority=150)
    elif cmd == "quit":
        Gtk.main_quit()
    print("ok", cmd, flush=True)
    return True


GLib.io_add_watch(sys.stdin, GLib.IO_IN, command)
Gtk.main()
