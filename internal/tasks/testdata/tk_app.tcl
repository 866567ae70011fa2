#!/usr/bin/wish
# The task suite's Tk app (argv: STATEFILE). Tk has no accessibility bridge: an agent finds the
# controls on screen (OCR). A Count button counts presses; a Word entry and a Save button store
# the word. The app reports its state by rewriting the JSON file STATEFILE on every change.
set statefile [lindex $argv 0]
set count 0
set saved ""
proc write {} {
    global statefile count saved
    set f [open $statefile.tmp w]
    puts $f "{\"count\": $count, \"saved\": \"$saved\"}"
    close $f
    file rename -force $statefile.tmp $statefile
}
wm title . "Tasks Tk App"
wm geometry . 440x260+40+40
. configure -background white
option add *Font {Helvetica 16}
button .count -text "Count" -command {
    incr ::count
    .status configure -text "Pressed $::count"
    write
}
label .status -text "Pressed 0" -background white
label .wl -text "Word" -background white
entry .word -width 16
button .save -text "Save" -command {
    set ::saved [.word get]
    write
}
grid .count -row 0 -column 0 -padx 20 -pady 16 -sticky w
grid .status -row 0 -column 1 -padx 20 -pady 16 -sticky w
grid .wl -row 1 -column 0 -padx 20 -pady 16 -sticky w
grid .word -row 1 -column 1 -padx 20 -pady 16 -sticky w
grid .save -row 2 -column 0 -padx 20 -pady 16 -sticky w
write
