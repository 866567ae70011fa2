# A Tk window for the backend's tests: Tk has no accessibility bridge and sets no _NET_WM_PID.
wm title . "mcec tk"
button .b -text "Press" -command {wm title . "mcec tk pressed"}
pack .b -padx 40 -pady 30
