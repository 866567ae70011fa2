# A small Qt form for the backend's toolkit tests. Usage: qtform.py 5|6 (PyQt5 or PyQt6; Debian
# python3-pyqt5 / python3-pyqt6). "Submit" writes the name field into the status label; "Open
# dialog" shows a (modeless) dialog window, so a test can tell the main window's frame from the
# dialog's.
import sys

if sys.argv[1] == "6":
    from PyQt6.QtWidgets import (QApplication, QCheckBox, QDialog, QLabel, QLineEdit,
                                 QPushButton, QVBoxLayout, QWidget)
else:
    from PyQt5.QtWidgets import (QApplication, QCheckBox, QDialog, QLabel, QLineEdit,
                                 QPushButton, QVBoxLayout, QWidget)

app = QApplication(sys.argv)
win = QWidget()
win.setWindowTitle("Qt%s Form" % sys.argv[1])
box = QVBoxLayout(win)
status = QLabel("Status: idle")
box.addWidget(status)
name = QLineEdit("Ada")
name.setAccessibleName("Name")
box.addWidget(name)
box.addWidget(QCheckBox("Subscribe"))
submit = QPushButton("Submit")
submit.clicked.connect(lambda: status.setText("Status: submitted " + name.text()))
box.addWidget(submit)

dialog = QDialog(win)
dialog.setWindowTitle("Qt Dialog")
dbox = QVBoxLayout(dialog)
dbox.addWidget(QLabel("A dialog"))
close = QPushButton("Close dialog")
close.clicked.connect(dialog.hide)
dbox.addWidget(close)
opener = QPushButton("Open dialog")
opener.clicked.connect(dialog.show)
box.addWidget(opener)

win.resize(320, 220)
win.show()
sys.exit(app.exec() if sys.argv[1] == "6" else app.exec_())
