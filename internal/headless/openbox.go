package headless

import (
	"os"
	"path/filepath"
	"strings"
)

// openboxRC replaces the user's and Debian's configuration, whose root menu
// (right click on the desktop), key bindings (Alt+Tab popups, Ctrl+Alt+arrows
// switching between four desktops, W-e launching programs) and menu file
// would react to an agent's synthetic input. Kept: click to focus and raise,
// focus for new windows, title bar drag and buttons, border resize, one
// desktop. The menu is an empty file of ours; Debian's names a missing file.
// No binding in the "Frame" context: a plain button binding there makes openbox
// grab that button on every frame and swallow clicks meant for the client.
// rebindOnMappingNotify is off because typing characters missing from the
// keymap remaps a keycode twice per character, and openbox would reload all
// its key bindings (~12 ms) on each change.
const openboxRC = `<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <resistance><strength>0</strength><screen_edge_strength>0</screen_edge_strength></resistance>
  <focus>
    <focusNew>yes</focusNew><followMouse>no</followMouse><focusLast>yes</focusLast>
    <underMouse>no</underMouse><raiseOnFocus>no</raiseOnFocus>
  </focus>
  <placement><policy>Smart</policy><center>yes</center><monitor>Primary</monitor></placement>
  <theme>
    <name>Clearlooks</name><titleLayout>NLIMC</titleLayout><keepBorder>yes</keepBorder>
    <animateIconify>no</animateIconify>
  </theme>
  <desktops><number>1</number><firstdesk>1</firstdesk><popupTime>0</popupTime></desktops>
  <resize><drawContents>yes</drawContents><popupShow>Never</popupShow></resize>
  <margins><top>0</top><bottom>0</bottom><left>0</left><right>0</right></margins>
  <keyboard><chainQuitKey>C-g</chainQuitKey><rebindOnMappingNotify>no</rebindOnMappingNotify></keyboard>
  <mouse>
    <dragThreshold>1</dragThreshold><doubleClickTime>500</doubleClickTime>
    <screenEdgeWarpTime>0</screenEdgeWarpTime><screenEdgeWarpMouse>false</screenEdgeWarpMouse>
    <context name="Client">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="Middle" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="Right" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
    </context>
    <context name="Titlebar">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="Left" action="Drag"><action name="Move"/></mousebind>
      <mousebind button="Left" action="DoubleClick"><action name="ToggleMaximize"/></mousebind>
    </context>
    <context name="Top Bottom Left Right TLCorner TRCorner BLCorner BRCorner">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="Left" action="Drag"><action name="Resize"/></mousebind>
    </context>
    <context name="Icon">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
    </context>
    <context name="Close">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="Left" action="Click"><action name="Close"/></mousebind>
    </context>
    <context name="Maximize">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="Left" action="Click"><action name="ToggleMaximize"/></mousebind>
    </context>
    <context name="Iconify">
      <mousebind button="Left" action="Press"><action name="Focus"/><action name="Raise"/></mousebind>
      <mousebind button="Left" action="Click"><action name="Iconify"/></mousebind>
    </context>
  </mouse>
  <menu><file>MENU</file><hideDelay>200</hideDelay></menu>
  <applications/>
</openbox_config>
`

const openboxMenu = `<?xml version="1.0" encoding="UTF-8"?>
<openbox_menu xmlns="http://openbox.org/3.4/menu">
  <menu id="root-menu" label="mcec"/>
</openbox_menu>
`

// writeOpenboxConfig writes rc.xml and its menu into dir and returns rc.xml's path.
func writeOpenboxConfig(dir string) (string, error) {
	menu := filepath.Join(dir, "openbox-menu.xml")
	if err := os.WriteFile(menu, []byte(openboxMenu), 0o600); err != nil {
		return "", err
	}
	rc := filepath.Join(dir, "openbox-rc.xml")
	body := strings.Replace(openboxRC, "MENU", xmlEscape(menu), 1)
	return rc, os.WriteFile(rc, []byte(body), 0o600)
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
