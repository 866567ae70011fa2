#!/usr/bin/python3
"""A PyQt5 window with a QListWidget of N items (argv[1]), for the huge-tree benchmark: Qt's
bridge has no cache, so every node costs calls."""
import sys

from PyQt5.QtWidgets import QApplication, QListWidget

app = QApplication(sys.argv)
n = int(sys.argv[1])
lst = QListWidget()
lst.addItems(["item %d" % i for i in range(n)])
lst.setWindowTitle("mcec qt list %d" % n)
lst.resize(400, 600)
lst.show()
sys.exit(app.exec_())
