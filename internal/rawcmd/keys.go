package rawcmd

import (
	"fmt"
	"strings"
)

// Key names. Every name here resolves to an X keysym name, which is what platform.Input takes.

// modifiers are the names shiftdown:/shiftup: and key: accept for modifiers.
var modifiers = map[string]string{
	"shift": "Shift_L", "ctrl": "Control_L", "control": "Control_L", "alt": "Alt_L",
	"super": "Super_L", "win": "Super_L", "meta": "Super_L",
	"lshift": "Shift_L", "rshift": "Shift_R", "lctrl": "Control_L", "rctrl": "Control_R",
	"lalt": "Alt_L", "ralt": "Alt_R", "altgr": "ISO_Level3_Shift", "lwin": "Super_L", "rwin": "Super_R",
}

// Modifier maps a modifier name (any case) to its keysym name.
func Modifier(name string) (string, bool) {
	s, ok := modifiers[strings.ToLower(name)]
	return s, ok
}

// namedKeys are the friendly single-key commands (matched in any case).
var namedKeys = map[string]string{
	"enter": "Return", "return": "Return", "escape": "Escape", "esc": "Escape", "tab": "Tab",
	"space": "space", "backspace": "BackSpace", "delete": "Delete", "del": "Delete", "insert": "Insert",
	"ins": "Insert", "home": "Home", "end": "End", "pageup": "Prior", "pgup": "Prior",
	"pagedown": "Next", "pgdn": "Next", "left": "Left", "right": "Right", "up": "Up", "down": "Down",
	"menu": "Menu", "print": "Print", "printscreen": "Print", "pause": "Pause", "capslock": "Caps_Lock",
	"numlock": "Num_Lock", "scrolllock": "Scroll_Lock",
	"volumeup": "XF86AudioRaiseVolume", "volumedown": "XF86AudioLowerVolume", "mute": "XF86AudioMute",
	"play": "XF86AudioPlay", "playpause": "XF86AudioPlay", "stop": "XF86AudioStop",
	"next": "XF86AudioNext", "prev": "XF86AudioPrev", "previous": "XF86AudioPrev",
}

// namedChords are the built-in chord commands.
var namedChords = map[string][]string{
	"ctrl-a": {"Control_L", "a"}, "ctrl-c": {"Control_L", "c"}, "ctrl-v": {"Control_L", "v"},
	"ctrl-x": {"Control_L", "x"}, "ctrl-z": {"Control_L", "z"}, "ctrl-y": {"Control_L", "y"},
	"ctrl-s": {"Control_L", "s"}, "close": {"Alt_L", "F4"},
}

// vkKeys maps the reference's Windows virtual-key names onto X keysyms (VK_A…VK_Z, VK_0…VK_9 and
// VK_F1…VK_F24 are added in init).
var vkKeys = map[string]string{
	"VK_BACK": "BackSpace", "VK_TAB": "Tab", "VK_CLEAR": "Clear", "VK_RETURN": "Return",
	"VK_SHIFT": "Shift_L", "VK_CONTROL": "Control_L", "VK_MENU": "Alt_L", "VK_PAUSE": "Pause",
	"VK_CAPITAL": "Caps_Lock", "VK_ESCAPE": "Escape", "VK_SPACE": "space", "VK_PRIOR": "Prior",
	"VK_NEXT": "Next", "VK_END": "End", "VK_HOME": "Home", "VK_LEFT": "Left", "VK_UP": "Up",
	"VK_RIGHT": "Right", "VK_DOWN": "Down", "VK_SELECT": "Select", "VK_PRINT": "Print",
	"VK_EXECUTE": "Execute", "VK_SNAPSHOT": "Print", "VK_INSERT": "Insert", "VK_DELETE": "Delete",
	"VK_HELP": "Help", "VK_LWIN": "Super_L", "VK_RWIN": "Super_R", "VK_APPS": "Menu",
	"VK_SLEEP": "XF86Sleep", "VK_MULTIPLY": "KP_Multiply", "VK_ADD": "KP_Add",
	"VK_SEPARATOR": "KP_Separator", "VK_SUBTRACT": "KP_Subtract", "VK_DECIMAL": "KP_Decimal",
	"VK_DIVIDE": "KP_Divide", "VK_NUMLOCK": "Num_Lock", "VK_SCROLL": "Scroll_Lock",
	"VK_LSHIFT": "Shift_L", "VK_RSHIFT": "Shift_R", "VK_LCONTROL": "Control_L", "VK_RCONTROL": "Control_R",
	"VK_LMENU": "Alt_L", "VK_RMENU": "Alt_R", "VK_CANCEL": "Cancel",
	"VK_BROWSER_BACK": "XF86Back", "VK_BROWSER_FORWARD": "XF86Forward", "VK_BROWSER_REFRESH": "XF86Refresh",
	"VK_BROWSER_STOP": "XF86Stop", "VK_BROWSER_SEARCH": "XF86Search", "VK_BROWSER_FAVORITES": "XF86Favorites",
	"VK_BROWSER_HOME": "XF86HomePage", "VK_VOLUME_MUTE": "XF86AudioMute", "VK_VOLUME_DOWN": "XF86AudioLowerVolume",
	"VK_VOLUME_UP": "XF86AudioRaiseVolume", "VK_MEDIA_NEXT_TRACK": "XF86AudioNext",
	"VK_MEDIA_PREV_TRACK": "XF86AudioPrev", "VK_MEDIA_STOP": "XF86AudioStop", "VK_MEDIA_PLAY_PAUSE": "XF86AudioPlay",
	"VK_LAUNCH_MAIL": "XF86Mail", "VK_LAUNCH_MEDIA_SELECT": "XF86AudioMedia", "VK_LAUNCH_APP1": "XF86MyComputer",
	"VK_LAUNCH_APP2": "XF86Calculator", "VK_PLAY": "XF86AudioPlay", "VK_ZOOM": "XF86ZoomIn",
	"VK_OEM_1": "semicolon", "VK_OEM_PLUS": "plus", "VK_OEM_COMMA": "comma", "VK_OEM_MINUS": "minus",
	"VK_OEM_PERIOD": "period", "VK_OEM_2": "slash", "VK_OEM_3": "grave", "VK_OEM_4": "bracketleft",
	"VK_OEM_5": "backslash", "VK_OEM_6": "bracketright", "VK_OEM_7": "apostrophe", "VK_OEM_102": "less",
}

func init() {
	for c := 'A'; c <= 'Z'; c++ {
		vkKeys["VK_"+string(c)] = strings.ToLower(string(c))
	}
	for c := '0'; c <= '9'; c++ {
		vkKeys["VK_"+string(c)] = string(c)
		vkKeys["VK_NUMPAD"+string(c)] = "KP_" + string(c)
	}
	for i := 1; i <= 24; i++ {
		vkKeys[fmt.Sprintf("VK_F%d", i)] = fmt.Sprintf("F%d", i)
	}
}

// keyName resolves one key of key:ctrl+shift+t: a modifier, a named key, a VK_ name, or an X
// keysym name (checked with known; nil accepts any).
func keyName(name string, known func(string) bool) (string, bool) {
	if s, ok := Modifier(name); ok {
		return s, true
	}
	if s, ok := namedKeys[strings.ToLower(name)]; ok {
		return s, true
	}
	if s, ok := vkKeys[strings.ToUpper(name)]; ok && strings.HasPrefix(strings.ToUpper(name), "VK_") {
		return s, true
	}
	if known == nil || known(name) {
		return name, true
	}
	return "", false
}
