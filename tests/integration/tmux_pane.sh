# tmux_pane.sh: reading a tmux pane for the live view's tests (test_tui.sh,
# test_tui_phases.sh, test_tui_hot.sh), sourced after tap.sh. The caller sets SOCK (its
# tmux server's socket name) and kills that server on exit. Every wait polls the pane with a timeout.
#
#   T ARGS...                    tmux on the test's own server
#   screen SESSION [history]     the pane's text (with 400 lines of history) into $SCRATCH/screen
#   wait_for SESSION ERE [SECONDS] [history]   polls until a line matches (default 10 s)
#   wait_gone SESSION ERE [SECONDS]            polls until no line matches
#   resize SESSION WxH ERE       until tmux has that size and the view has redrawn into it
#   show                         $SCRATCH/screen indented, for a failure's diagnostics

T() { "$TMUX_BIN" -L "$SOCK" -f /dev/null "$@"; }

screen() {
	if [ -n "${2:-}" ]; then
		T capture-pane -p -t "$1" -S -400 >"$SCRATCH/screen" 2>/dev/null
	else
		T capture-pane -p -t "$1" >"$SCRATCH/screen" 2>/dev/null
	fi
}
wait_for() {
	_deadline=$(( $(date +%s) + ${3:-10} ))
	while :; do
		screen "$1" "${4:-}"
		grep -Eq -- "$2" "$SCRATCH/screen" && return 0
		[ "$(date +%s)" -ge "$_deadline" ] && return 1
		sleep 0.1
	done
}
wait_gone() {
	_deadline=$(( $(date +%s) + ${3:-10} ))
	while :; do
		screen "$1"
		grep -Eq -- "$2" "$SCRATCH/screen" || return 0
		[ "$(date +%s)" -ge "$_deadline" ] && return 1
		sleep 0.1
	done
}
resize() {
	_deadline=$(( $(date +%s) + 10 ))
	while :; do
		if [ "$(T display-message -p -t "$1" '#{pane_width}x#{pane_height}')" != "$2" ]; then
			T resize-window -t "$1" -x "${2%x*}" -y "${2#*x}"
			sleep 0.1
		else
			screen "$1"
			grep -Eq -- "$3" "$SCRATCH/screen" && return 0
		fi
		[ "$(date +%s)" -ge "$_deadline" ] && return 1
		sleep 0.1
	done
}
show() { sed 's/^/  | /' "$SCRATCH/screen"; }
