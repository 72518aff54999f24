/*
 * process_table.h: the text report's table of processes (report/process_table.c): each
 * process's arguments shortened, when it began and ended and for how long, its CPU, its
 * peak memory and, for Python, its version; the short-lived helpers of a wrapper (pyenv's
 * shims) folded into one line under the process they ran for (model/proc_label.h).
 */
#ifndef CPW_REPORT_PROCESS_TABLE_H
#define CPW_REPORT_PROCESS_TABLE_H

#include <stdio.h>

#include "model/tree.h"

/* Writes the table (nothing for an empty tree or NULL); at most 50 rows, the rest counted. */
void cpw_process_table_write(const struct cpw_tree *t, FILE *out);

#endif
