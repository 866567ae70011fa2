#!/usr/bin/python3
"""A small PyQt5 form the launch tests start: a line edit, a check box and a button, in a window
titled "mcec qt form". It does nothing else; the tests only look at its tree."""
import sys

from PyQt5.QtWidgets import QApplication, QCheckBox, QLineEdit, QPushButton, QVBoxLayout, QWidget

app = QApplication(sys.argv)
win = QWidget()
win.setWindowTitle("mcec qt form")
layout = QVBoxLayout(win)
name = QLineEdit("hello")
name.setAccessibleName("Name")
layout.addWidget(name)
layout.addWidget(QCheckBox("Subscribe"))
layout.addWidget(QPushButton("Submit"))
win.resize(320, 160)
win.show()
sys.exit(app.exec_())
