# m4/cpw_static.m4: linking a dependency statically where a usable archive exists.

# CPW_TRY_STATIC(NAME, VARIABLE, INCLUDES, BODY)
# ----------------------------------------------
# Links VARIABLE's libraries (JSONC_LIBS, NCURSES_LIBS) statically when a test program
# made of INCLUDES and BODY does (hardened as the binary is), and then uses them so, adding
# NAME to CPW_STATIC_LIBS. Otherwise they stay shared, unless --enable-static-libs asked
# for them: then it is an error.
AC_DEFUN([CPW_TRY_STATIC],
  [AC_MSG_CHECKING([whether $1 links statically])
   cpw_save_LIBS=$LIBS cpw_save_LDFLAGS=$LDFLAGS cpw_save_CPPFLAGS=$CPPFLAGS cpw_save_CFLAGS=$CFLAGS
   LIBS="-Wl,-Bstatic $$2 -Wl,-Bdynamic $LIBS" LDFLAGS="$LDFLAGS $HARDEN_LDFLAGS"
   CPPFLAGS="$CPPFLAGS $JSONC_CFLAGS $NCURSES_CFLAGS" CFLAGS="$CFLAGS $HARDEN_CFLAGS"
   AC_LINK_IFELSE([AC_LANG_PROGRAM([$3], [$4])],
     [AC_MSG_RESULT([yes])
      $2="-Wl,-Bstatic $$2 -Wl,-Bdynamic"
      CPW_STATIC_LIBS="$CPW_STATIC_LIBS $1"],
     [AC_MSG_RESULT([no])
      AS_IF([test "x$enable_static_libs" = xyes],
        [AC_MSG_ERROR([--enable-static-libs: no usable static $1 (install its -dev package)])])])
   LIBS=$cpw_save_LIBS LDFLAGS=$cpw_save_LDFLAGS CPPFLAGS=$cpw_save_CPPFLAGS CFLAGS=$cpw_save_CFLAGS])
