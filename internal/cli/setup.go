package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/gnomeext"
	"github.com/mcec/mcec/internal/platform/linux"
)

// kdeDesktopFileName is the desktop file `mcec setup kde` installs.
const kdeDesktopFileName = "mcec.desktop"

func newSetupCmd(st *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "One-time setup a desktop session needs before mcec can drive it (KDE Plasma, GNOME)",
	}
	var remove bool
	kde := &cobra.Command{
		Use:   "kde",
		Short: "Let KDE Plasma's KWin give this mcec screenshots and input",
		Long: `KWin gives screenshots (org.kde.KWin.ScreenShot2) and synthetic input (fake input) only to
programs a desktop file allows. This writes one, naming this mcec executable by its absolute
path, to $XDG_DATA_HOME/applications/mcec.desktop (~/.local/share/applications without
XDG_DATA_HOME). KWin notices it within seconds; restart mcec afterwards. Any program started
from that path is allowed, so keep it writable by you alone. --remove takes it away.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := applicationsDir()
			if err != nil {
				return err
			}
			path := filepath.Join(dir, kdeDesktopFileName)
			if remove {
				if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				fmt.Fprintln(st.out, "removed", path)
				return nil
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			if exe, err = filepath.EvalSymlinks(exe); err != nil {
				return err
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(path, []byte(linux.KWinDesktopFile(exe)), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(st.out, "wrote %s: KWin lets %s take screenshots and send input; restart mcec, then check with `mcec doctor`\n", path, exe)
			return nil
		},
	}
	kde.Flags().BoolVar(&remove, "remove", false, "remove the desktop file instead")
	cmd.AddCommand(kde, newSetupGNOMECmd(st))
	return cmd
}

func newSetupGNOMECmd(st *streams) *cobra.Command {
	var remove bool
	cmd := &cobra.Command{
		Use:   "gnome",
		Short: "Install mcec's GNOME Shell extension, which lets this mcec see and drive GNOME",
		Long: `GNOME Shell lets no ordinary program list windows with their places, read pixels or send
input. mcec's extension does it from inside the Shell, for this mcec executable alone (named by
its absolute path in the extension's allowed-exe; any other caller is refused). This writes the
extension to $XDG_DATA_HOME/gnome-shell/extensions/` + gnomeext.UUID + ` (~/.local/share without
XDG_DATA_HOME) and adds it to org.gnome.shell enabled-extensions through gsettings. GNOME Shell
on Wayland loads a new extension at login: log out and back in, then check with ` + "`mcec doctor`" + `.
The extension is written for GNOME 42 to 51 (one variant up to 44, one from 45 on: this
picks by ` + "`gnome-shell --version`" + `). --remove disables and deletes it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			data, err := dataHome()
			if err != nil {
				return err
			}
			dir := gnomeext.Dir(data)
			if remove {
				if err := setEnabled(cmd.Context(), false); err != nil {
					fmt.Fprintln(st.err, "note:", err)
				}
				if err := os.RemoveAll(dir); err != nil {
					return err
				}
				fmt.Fprintln(st.out, "removed", dir)
				return nil
			}
			shell := gnomeext.ShellVersion(cmd.Context())
			if shell == 0 {
				return errors.New("`gnome-shell --version` did not answer: the extension comes in one variant for GNOME 42-44 and one for 45 and later, and which one this Shell loads is not known")
			}
			exe, err := os.Executable()
			if err == nil {
				exe, err = filepath.EvalSymlinks(exe)
			}
			if err != nil {
				return err
			}
			if dir, err = gnomeext.Install(data, exe, shell); err != nil {
				return err
			}
			fmt.Fprintf(st.out, "wrote %s for GNOME Shell %d: the extension serves %s alone\n", dir, shell, exe)
			if shell > gnomeext.LastModule {
				fmt.Fprintf(st.out, "note: GNOME Shell %d is newer than the extension was written for (%d-%d); it is declared for it, and `mcec doctor` tells whether it works\n",
					shell, gnomeext.FirstModule, gnomeext.LastModule)
			}
			if err := setEnabled(cmd.Context(), true); err != nil {
				fmt.Fprintf(st.out, "could not enable it (%v): run `gnome-extensions enable %s` after logging in again\n", err, gnomeext.UUID)
			} else {
				fmt.Fprintln(st.out, "enabled it in org.gnome.shell enabled-extensions")
			}
			fmt.Fprintln(st.out, "log out and back in (GNOME Shell on Wayland loads new extensions at login), then run `mcec doctor`")
			return nil
		},
	}
	cmd.Flags().BoolVar(&remove, "remove", false, "disable and delete the extension instead")
	return cmd
}

// setEnabled adds the extension to, or takes it from, org.gnome.shell enabled-extensions.
func setEnabled(ctx context.Context, on bool) error {
	out, err := exec.CommandContext(ctx, "gsettings", "get", "org.gnome.shell", "enabled-extensions").Output()
	if err != nil {
		return fmt.Errorf("gsettings get org.gnome.shell enabled-extensions: %w", err)
	}
	list := parseStrv(string(out))
	list = slices.DeleteFunc(list, func(s string) bool { return s == gnomeext.UUID })
	if on {
		list = append(list, gnomeext.UUID)
	}
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = "'" + s + "'"
	}
	return exec.CommandContext(ctx, "gsettings", "set", "org.gnome.shell", "enabled-extensions", "["+strings.Join(quoted, ", ")+"]").Run()
}

// parseStrv reads gsettings' printing of a string array: "['a', 'b']" or "@as []".
func parseStrv(s string) []string {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "@as"))
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.Trim(strings.TrimSpace(f), "'\""); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// applicationsDir is $XDG_DATA_HOME/applications, or ~/.local/share/applications.
func applicationsDir() (string, error) {
	d, err := dataHome()
	return filepath.Join(d, "applications"), err
}

// dataHome is $XDG_DATA_HOME, or ~/.local/share.
func dataHome() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory to install into: %w", err)
	}
	return filepath.Join(home, ".local", "share"), nil
}
