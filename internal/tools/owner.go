package tools

import (
	"fmt"
	"os"
	"syscall"

	"github.com/mcec/mcec/contract"
)

// checkOwner refuses to act on a process that belongs to another user: the contract's
// elevation category, which the agent cannot recover from. Root may act on anyone's windows.
func checkOwner(pid int) error {
	if pid <= 0 {
		return nil
	}
	fi, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	if err != nil {
		return nil // gone or hidden: the action itself will say what happened
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if me := os.Getuid(); me != 0 && int(st.Uid) != me {
		return contract.Errorf(contract.CodeTargetElevated,
			"process %d belongs to user %d, not to this server's user %d; mcec does not act across users", pid, st.Uid, me)
	}
	return nil
}
