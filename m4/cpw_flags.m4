# m4/cpw_flags.m4: compiler and linker flags, each used only where the toolchain takes it.

# CPW_HARDEN_FLAG(VARIABLE, FLAG)
# -------------------------------
# Appends FLAG to VARIABLE (HARDEN_CFLAGS or HARDEN_LDFLAGS) when a test program builds
# with it, with -Werror and the flags already in HARDEN_CFLAGS (for HARDEN_LDFLAGS: when it
# links with the linker's warnings fatal).
AC_DEFUN([CPW_HARDEN_FLAG],
  [AC_MSG_CHECKING([whether $2 works])
   cpw_save_CFLAGS=$CFLAGS cpw_save_LDFLAGS=$LDFLAGS
   CFLAGS="$CFLAGS -Werror $HARDEN_CFLAGS"
   AS_IF([test "x$1" = xHARDEN_LDFLAGS],
     [LDFLAGS="$LDFLAGS -Wl,--fatal-warnings $HARDEN_LDFLAGS $2"], [CFLAGS="$CFLAGS $2"])
   AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <stdio.h>
#include <string.h>]], [[char b[16]; snprintf(b, sizeof b, "%d", 1); return (int)strlen(b);]])],
     [AC_MSG_RESULT([yes]); $1="$$1 $2"], [AC_MSG_RESULT([no])])
   CFLAGS=$cpw_save_CFLAGS LDFLAGS=$cpw_save_LDFLAGS])

# CPW_WARN_FLAGS(FLAG...)
# -----------------------
# Appends to WARN_CFLAGS each FLAG that the compiler takes: a test program compiles with it
# and -Werror (clang refuses a warning it does not know, under -Werror). A -Wno-NAME is
# probed as -WNAME, since gcc takes any -Wno-NAME silently and complains about an unknown
# one only once some other warning is printed.
AC_DEFUN([CPW_WARN_FLAGS],
  [for cpw_flag in m4_normalize([$1]); do
     AC_MSG_CHECKING([whether the compiler takes $cpw_flag])
     cpw_probe=`echo "$cpw_flag" | sed 's/^-Wno-/-W/'`
     cpw_save_CFLAGS=$CFLAGS
     CFLAGS="$CFLAGS -Werror $cpw_probe"
     AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <stdio.h>]], [[return puts("") < 0;]])],
       [AC_MSG_RESULT([yes]); WARN_CFLAGS="$WARN_CFLAGS $cpw_flag"], [AC_MSG_RESULT([no])])
     CFLAGS=$cpw_save_CFLAGS
   done
   WARN_CFLAGS=`echo $WARN_CFLAGS`])
