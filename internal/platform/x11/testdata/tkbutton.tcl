# A Tk 8.6 window with a button, for tests. Tk sets no _NET_WM_PID, so only the X Resource
# extension tells whose window this is.
# Arguments: the main window's title, and optionally a dialog's title (a transient toplevel).
wm title . [lindex $argv 0]
button .b -text "Press me" -command {puts pressed; flush stdout}
pack .b -padx 40 -pady 30
if {[llength $argv] > 1} {
    toplevel .d
    wm title .d [lindex $argv 1]
    wm transient .d .
    label .d.l -text "A dialog"
    pack .d.l -padx 20 -pady 20
}
