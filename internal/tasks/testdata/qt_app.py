#!/usr/bin/python3
"""The task suite's Qt form, for PyQt5 or PyQt6 (argv: 5|6 STATEFILE): a Name field, a Member
check box, a Plan combo box, a Submit button and a Reset… button that asks for confirmation in a
modal QMessageBox run with exec() (a nested event loop). It reports its own state by rewriting
the JSON file STATEFILE (atomically) on every change, independently of any accessibility answer."""
import json
import os
import sys

if sys.argv[1] == "6":
    from PyQt6 import QtWidgets
    version = "Qt6"
    Yes, No = QtWidgets.QMessageBox.StandardButton.Yes, QtWidgets.QMessageBox.StandardButton.No
else:
    from PyQt5 import QtWidgets
    version = "Qt5"
    Yes, No = QtWidgets.QMessageBox.Yes, QtWidgets.QMessageBox.No
STATE = sys.argv[2]
state = {"name": "", "member": False, "plan": "Basic", "submitted": 0, "submittedName": "",
         "submittedPlan": "", "submittedMember": False, "reset": "never"}


def write():
    tmp = STATE + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f)
    os.replace(tmp, STATE)


def change(**kw):
    state.update(kw)
    write()


app = QtWidgets.QApplication(sys.argv[:1])
win = QtWidgets.QWidget()
win.setWindowTitle("Tasks %s Form" % version)
win.resize(440, 280)
win.move(40, 40)
lay = QtWidgets.QFormLayout(win)
name = QtWidgets.QLineEdit()
name.setAccessibleName("Name")
name.textChanged.connect(lambda t: change(name=t))
member = QtWidgets.QCheckBox("Member")
member.toggled.connect(lambda on: change(member=bool(on)))
plan = QtWidgets.QComboBox()
plan.addItems(["Basic", "Pro", "Team"])
plan.setAccessibleName("Plan")
plan.currentTextChanged.connect(lambda t: change(plan=t))
submit = QtWidgets.QPushButton("Submit")
submit.clicked.connect(lambda: change(submitted=state["submitted"] + 1, submittedName=state["name"],
                                      submittedPlan=state["plan"], submittedMember=state["member"]))
reset = QtWidgets.QPushButton("Reset…")


def on_reset():
    box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Icon.Question, "Confirm Reset",
                                "Reset the form?", Yes | No, win)
    r = box.exec()
    if r == Yes:
        name.setText("")
        member.setChecked(False)
        plan.setCurrentIndex(0)
        change(reset="yes")
    else:
        change(reset="no")


reset.clicked.connect(on_reset)
lay.addRow("Name", name)
lay.addRow(member)
lay.addRow("Plan", plan)
lay.addRow(submit)
lay.addRow(reset)
write()
win.show()
sys.exit(app.exec())
