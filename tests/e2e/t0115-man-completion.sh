#!/usr/bin/env bash
# 'appio man' and 'appio completion bash' come from the same tables as --help:
# the page renders without warnings and names every profile, emulator, engine,
# trace format and option; the completion offers commands, profiles, a
# workload's options and an emulator's actions and words; 'make install' puts
# both where man and bash look.
. tests/e2e/lib.sh
ROOT=$PWD

expect_exit 0 "appio man prints the page" -- "$APPIO" man
cp "$T/stdout" "$T/appio.1"
if command -v groff >/dev/null; then
	w=$(groff -man -Tutf8 -ww -z "$T/appio.1" 2>&1)
	[ -z "$w" ] && ok "  it renders without a warning" || { not_ok "  it renders without a warning"; echo "    $w" | head -5; }
else
	skip "  it renders without a warning" "no groff"
fi
# a name in the page: roff writes '-' as '\-'
in_page() { grep -qF -- "$(sed 's/-/\\-/g' <<<"$1")" "$T/appio.1"; }
missing=
for w in $("$APPIO" list | awk '/^  [a-z0-9]/ {print $1}'); do in_page "$w" || missing="$missing $w"; done
[ -z "$missing" ] && ok "  every name 'appio list' shows is in it" || not_ok "  missing from the page:$missing"
missing=
for e in oltp nosql replay; do
	for o in $("$APPIO" run "$e" --help | grep -o '^  --[a-z0-9-]*'); do in_page "$o" || missing="$missing $e:$o"; done
done
for o in $("$APPIO" suite --help | grep -o '^  --[a-z0-9-]*'); do in_page "$o" || missing="$missing suite:$o"; done
[ -z "$missing" ] && ok "  and every option of oltp, nosql, replay and the suite" || not_ok "  options missing:$missing"
expect_exit 2 "appio man with an argument is refused" -- "$APPIO" man oltp

expect_exit 0 "appio completion bash prints a script" -- "$APPIO" completion bash
cp "$T/stdout" "$T/appio.bash"
check "  bash reads it" bash -n "$T/appio.bash"
# complete WORDS...: what _appio offers for the last word
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _appio; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$T/appio.bash" "$@" 2>&1
}
offers() {  # DESC WANT WORDS...
	local desc=$1 want=$2; shift 2
	complete_words "$@" | grep -qx -- "$want" && ok "$desc" || { not_ok "$desc"; complete_words "$@" | head -5 | sed 's/^/    /'; }
}
offers "  a command" suite appio su
offers "  a profile by its start" 4k-randread appio 4k-r
offers "  a workload's option after run" --buffer-pool appio run oltp --buf
offers "  a profile's emulator options" --bs appio 8k-70-30 --b
offers "  an emulator's action" prepare appio db pre
offers "  the word after the action" oltp_read_write appio db prepare oltp_r
offers "  a suite" review appio suite re
offers "  a suite option" --pre-args appio suite review --pre
expect_exit 2 "appio completion zsh is refused, naming bash" -- "$APPIO" completion zsh
grep -q bash "$T/stderr" && one_line_error "  in one line" || not_ok "  naming bash"

if [ "$APPIO" = "$ROOT/appio" ]; then
	make -s --no-print-directory install DESTDIR="$T/inst" PREFIX=/usr >/dev/null 2>"$T/make.err"
	[ -x "$T/inst/usr/bin/appio" ] && cmp -s "$T/inst/usr/share/man/man1/appio.1" "$T/appio.1" &&
		cmp -s "$T/inst/usr/share/bash-completion/completions/appio" "$T/appio.bash" &&
		ok "make install: the binary, its page and its completion" ||
		{ not_ok "make install: the binary, its page and its completion"; head -3 "$T/make.err"; }
else
	skip "make install" "only for the plain build (APPIO=$APPIO)"
fi
finish
