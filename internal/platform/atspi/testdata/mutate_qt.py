#!/usr/bin/python3
"""The PyQt5 twin of mutate_gtk.py (same commands; the tree view ones act on the list), for TestMirrorMatchesFreshWalks on Qt."""
import sys

from PyQt5.QtCore import QSocketNotifier
from PyQt5.QtWidgets import (QApplication, QCheckBox, QLabel, QLineEdit, QListWidget, QPushButton,
                             QSlider, QVBoxLayout, QWidget)
from PyQt5.QtCore import Qt

app = QApplication(sys.argv)
win = QWidget()
win.setWindowTitle("mcec mutate qt")
layout = QVBoxLayout(win)
label = QLabel("Status 0")
layout.addWidget(label)
check = QCheckBox("Enabled")
layout.addWidget(check)
slider = QSlider(Qt.Horizontal)
slider.setRange(0, 100)
slider.setValue(10)
slider.setAccessibleName("Level")
layout.addWidget(slider)
entry = QLineEdit("alpha")
entry.setAccessibleName("Name")
layout.addWidget(entry)
button = QPushButton("Apply")
layout.addWidget(button)
lst = QListWidget()
rows = 0


def add_row():
    global rows
    rows += 1
    lst.addItem("row %d" % rows)


for _ in range(30):
    add_row()
layout.addWidget(lst)
win.resize(360, 420)
win.move(40, 40)
win.show()
count = 0


def command():
    global count
    line = sys.stdin.readline()
    if not line:
        app.quit()
        return
    cmd = line.strip()
    count += 1
    if cmd == "tedit":
        lst.item(0).setText("edited %d" % count)
    elif cmd in ("add", "tadd"):
        add_row()
    elif cmd in ("remove", "tremove"):
        if lst.count():
            lst.takeItem(lst.count() - 1)
    elif cmd == "rename":
        label.setText("Status %d" % count)
    elif cmd == "toggle":
        check.setChecked(not check.isChecked())
    elif cmd == "value":
        slider.setValue(slider.value() + 7)
    elif cmd == "text":
        entry.setText("text %d" % count)
    elif cmd == "hide":
        button.hide()
    elif cmd == "show":
        button.show()
    elif cmd == "move":
        win.move(win.x() + 37, win.y() + 23)
    elif cmd == "grow":
        button.setMinimumHeight(button.height() + 12)
    elif cmd == "scroll":
        bar = lst.verticalScrollBar()
        bar.setValue(bar.value() + 5)
    elif cmd == "quit":
        app.quit()
    print("ok", cmd, flush=True)


notifier = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Read)
notifier.activated.connect(command)
sys.exit(app.exec_())
