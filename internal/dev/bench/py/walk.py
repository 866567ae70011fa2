#!/usr/bin/python3
"""The pyatspi side of the tree benchmark: one warm process that walks an application's frame
the way a Python agent would, reading role, name, states and extents of every node.

Commands on stdin, one per line: "walk PID FRAME-NAME". Answers "NODES" on stdout (or
"error TEXT"). The Go side times the round trip, so both sides pay one pipe hop.
"""
import sys

import pyatspi


def frame_of(pid, name):
    desktop = pyatspi.Registry.getDesktop(0)
    for app in desktop:
        if app is None:
            continue
        try:
            if app.get_process_id() != pid:
                continue
        except Exception:
            continue
        frames = [c for c in app if c is not None]
        for c in frames:
            if c.name == name:
                return c
        if len(frames) == 1:
            return frames[0]
    return None


def walk(acc):
    count = 1
    acc.getRole()
    acc.name
    acc.getState().getStates()
    try:
        acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    except NotImplementedError:
        pass
    for i in range(acc.childCount):
        child = acc.getChildAtIndex(i)
        if child is not None:
            count += walk(child)
    return count


for line in sys.stdin:
    parts = line.rstrip("\n").split(" ", 2)
    try:
        if parts[0] != "walk" or len(parts) != 3:
            raise ValueError("unknown command %r" % line)
        frame = frame_of(int(parts[1]), parts[2])
        if frame is None:
            raise LookupError("no frame %r in pid %s" % (parts[2], parts[1]))
        print(walk(frame), flush=True)
    except Exception as e:  # the benchmark reports it and stops
        print("error", repr(e).replace("\n", " "), flush=True)
