#!/bin/sh
# test_manpage.sh: doc/cperfwatch.1 renders without warnings (man-db and groff), and stays in
# step with the program: the options --help lists and the options the page describes are
# the same, the version on the page is the one --version prints, and --help and --version
# follow the GNU conventions (exit 0, output on stdout, "Usage:" first).

. "$CPW_SRCDIR/tests/integration/tap.sh"

PAGE="$CPW_SRCDIR/doc/cperfwatch.1"

plan 8

# 1: man-db's own check, as Debian's lintian runs it
if command -v man >/dev/null 2>&1; then
	LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l -Tutf8 -Z "$PAGE" >/dev/null 2>"$SCRATCH/man.err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$SCRATCH/man.err" ]; then
		not_ok "man --warnings renders the page silently" "exit $rc: $(head -n 20 "$SCRATCH/man.err")"
	else
		ok "man --warnings renders the page silently"
	fi
else
	missing "man --warnings renders the page silently" man-db
fi

# 2: groff with every warning enabled
if command -v groff >/dev/null 2>&1; then
	groff -man -ww -z "$PAGE" 2>"$SCRATCH/groff.err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$SCRATCH/groff.err" ]; then
		not_ok "groff -ww renders the page silently" "exit $rc: $(head -n 20 "$SCRATCH/groff.err")"
	else
		ok "groff -ww renders the page silently"
	fi
else
	missing "groff -ww renders the page silently" groff-base
fi

if [ ! -x "$CPW" ]; then
	for what in "--help follows GNU conventions" "--version follows GNU conventions" \
		"the page's version is --version's" "every long option of --help is on the page" \
		"every long option on the page is in --help" "every short option of --help is on the page"; do
		not_ok "$what" "$CPW is not built"
	done
	done_testing
fi

# 3: --help
"$CPW" --help >"$SCRATCH/help" 2>"$SCRATCH/help.err"
rc=$?
if [ $rc -ne 0 ]; then
	not_ok "--help follows GNU conventions" "exit status $rc: $(head -n 5 "$SCRATCH/help.err")"
elif [ -s "$SCRATCH/help.err" ]; then
	not_ok "--help follows GNU conventions" "it wrote to stderr: $(head -n 5 "$SCRATCH/help.err")"
elif ! head -n 1 "$SCRATCH/help" | grep -q '^Usage: cperfwatch '; then
	not_ok "--help follows GNU conventions" "first line is not 'Usage: cperfwatch ...': $(head -n 1 "$SCRATCH/help")"
else
	ok "--help follows GNU conventions"
fi

# 4: --version: "cperfwatch VERSION" or "cperfwatch (cperfwatch) VERSION" on the first line
"$CPW" --version >"$SCRATCH/version" 2>"$SCRATCH/version.err"
rc=$?
version=$(head -n 1 "$SCRATCH/version" | sed -n 's/^cperfwatch \((cperfwatch) \)\{0,1\}\([0-9][0-9.a-z~+-]*\)$/\2/p')
if [ $rc -ne 0 ]; then
	not_ok "--version follows GNU conventions" "exit status $rc: $(head -n 5 "$SCRATCH/version.err")"
elif [ -s "$SCRATCH/version.err" ] || [ -z "$version" ]; then
	not_ok "--version follows GNU conventions" "first line: $(head -n 1 "$SCRATCH/version")"
else
	ok "--version follows GNU conventions"
fi

# 5: the page's .TH names the same version
page_version=$(sed -n 's/^\.TH CPERFWATCH 1 "[^"]*" "cperfwatch \([^"]*\)".*/\1/p' "$PAGE")
if [ -n "$version" ] && [ "$version" = "$page_version" ]; then
	ok "the page's version is --version's"
else
	not_ok "the page's version is --version's" "page: '$page_version', --version: '$version' (update .TH in doc/cperfwatch.1)"
fi

# Long options: from --help, every --word; from the page, every \-\-word of the OPTIONS
# section (where each option is described) and of the whole page.
grep -o -- '--[a-z][a-z0-9-]*' "$SCRATCH/help" | sort -u >"$SCRATCH/help.long"
sed 's/\\-/-/g' "$PAGE" >"$SCRATCH/page.txt"
grep -o -- '--[a-z][a-z0-9-]*' "$SCRATCH/page.txt" | sort -u >"$SCRATCH/page.long"
awk '/^\.SH OPTIONS/ { f = 1; next } /^\.SH/ { f = 0 } f' "$SCRATCH/page.txt" |
	grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$SCRATCH/options.long"

# 6
missing=$(comm -23 "$SCRATCH/help.long" "$SCRATCH/page.long" | tr '\n' ' ')
if [ ! -s "$SCRATCH/help.long" ]; then
	not_ok "every long option of --help is on the page" "--help lists no long option"
elif [ -n "$missing" ]; then
	not_ok "every long option of --help is on the page" "not on the page: $missing"
else
	ok "every long option of --help is on the page"
fi

# 7
extra=$(comm -13 "$SCRATCH/help.long" "$SCRATCH/options.long" | tr '\n' ' ')
if [ -n "$extra" ]; then
	not_ok "every long option on the page is in --help" "on the page but not in --help: $extra"
else
	ok "every long option on the page is in --help"
fi

# 8: short options, as "-x," or "-x " at the start of an indented help line
sed -n 's/^ *\(-[a-zA-Z]\)[, ].*/\1/p' "$SCRATCH/help" | sort -u >"$SCRATCH/help.short"
missing=""
while read -r opt; do
	grep -qE -- "^\.BR? $opt( |\$)" "$SCRATCH/page.txt" || missing="$missing $opt"
done <"$SCRATCH/help.short"
if [ ! -s "$SCRATCH/help.short" ]; then
	not_ok "every short option of --help is on the page" "--help lists no short option"
elif [ -n "$missing" ]; then
	not_ok "every short option of --help is on the page" "not described on the page:$missing"
else
	ok "every short option of --help is on the page"
fi

done_testing
