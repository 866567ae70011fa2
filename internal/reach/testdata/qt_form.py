#!/usr/bin/python3
"""The reach suite's Qt form, for PyQt5 or PyQt6 (the first argument: 5 or 6): a named text
field, a Greet button that changes the status label, a check box, and a button that opens a
modal dialog (QDialog.open: window-modal, no nested event loop)."""
import sys

if sys.argv[1:2] == ["6"]:
    from PyQt6 import QtWidgets
    version = "Qt6"
else:
    from PyQt5 import QtWidgets
    version = "Qt5"

app = QtWidgets.QApplication(sys.argv[:1])
win = QtWidgets.QWidget()
win.setWindowTitle("Reach %s Form" % version)
win.resize(420, 260)
win.move(40, 40)
lay = QtWidgets.QVBoxLayout(win)
entry = QtWidgets.QLineEdit("initial text")
entry.setAccessibleName("Name field")
greet = QtWidgets.QPushButton("Greet")
status = QtWidgets.QLabel("Status: idle")
check = QtWidgets.QCheckBox("Subscribe")
opener = QtWidgets.QPushButton("Open dialog")
for w in (entry, greet, status, check, opener):
    lay.addWidget(w)
count = 0


def on_greet():
    global count
    count += 1
    status.setText("Status: greeted %d" % count)


dialogs = []


def on_open():
    d = QtWidgets.QDialog(win)
    d.setWindowTitle("Reach Dialog")
    d.resize(260, 120)
    dl = QtWidgets.QVBoxLayout(d)
    dl.addWidget(QtWidgets.QLabel("This is the dialog"))
    close = QtWidgets.QPushButton("Close dialog")
    close.clicked.connect(d.accept)
    dl.addWidget(close)
    dialogs.append(d)
    d.open()


greet.clicked.connect(on_greet)
opener.clicked.connect(on_open)
win.show()
sys.exit(app.exec() if hasattr(app, "exec") else app.exec_())
