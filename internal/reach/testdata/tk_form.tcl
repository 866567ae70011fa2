#!/usr/bin/wish
# The reach suite's Tk form: Tk has no accessibility bridge, so the suite drives it by pixels.
# Widgets sit at fixed window-relative positions (the Greet button is the 120x30 box at 20,60);
# pressing Greet sets the window title to "Reach Tk Form greeted N", which the suite reads back
# through the windows tool.
wm title . "Reach Tk Form"
wm geometry . 420x260+40+40
. configure -background white
entry .name -width 30
.name insert 0 "initial text"
place .name -x 20 -y 20 -width 240 -height 28
set count 0
button .greet -text "Greet" -command {
    incr ::count
    .status configure -text "Status: greeted $::count"
    wm title . "Reach Tk Form greeted $::count"
}
place .greet -x 20 -y 60 -width 120 -height 30
label .status -text "Status: idle" -background white
place .status -x 20 -y 100
checkbutton .subscribe -text "Subscribe" -background white
place .subscribe -x 20 -y 130
button .open -text "Open dialog" -command {
    toplevel .dlg
    wm title .dlg "Reach Dialog"
    wm transient .dlg .
    label .dlg.l -text "This is the dialog"
    button .dlg.c -text "Close dialog" -command {destroy .dlg}
    pack .dlg.l .dlg.c -padx 20 -pady 10
}
place .open -x 20 -y 170 -width 120 -height 30
