package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/platform/linux"
)

// kdeDesktopFileName is the desktop file `mcec setup kde` installs.
const kdeDesktopFileName = "mcec.desktop"

func newSetupCmd(st *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "One-time setup a desktop session needs before mcec can drive it",
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
	cmd.AddCommand(kde)
	return cmd
}

// applicationsDir is $XDG_DATA_HOME/applications, or ~/.local/share/applications.
func applicationsDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "applications"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory to install the desktop file in: %w", err)
	}
	return filepath.Join(home, ".local", "share", "applications"), nil
}
