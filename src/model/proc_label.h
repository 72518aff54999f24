/*
 * proc_label.h: a process as people tell it apart (model/proc_label.c): its arguments
 * shortened (the program's name without its directory, then its arguments), and the
 * short-lived helpers of wrappers folded (a pyenv shim's 40 bash, readlink and basename
 * processes, that ran before it exec'd python). The text table, the plot's lanes, the
 * phases and the leak finding name processes with them. Pure.
 */
#ifndef CPW_MODEL_PROC_LABEL_H
#define CPW_MODEL_PROC_LABEL_H

#include <stdbool.h>
#include <stddef.h>

#include "model/tree.h"

/* p's command line with its program's directory left out ("python3 -m pytest -k slow"),
 * after its name in brackets where it named itself ("[worker-3] python3 serve.py"),
 * cut to at most max characters with "..." where longer; its name (comm) where it has no
 * command line (a process gone before its first sample, a kernel thread). Raw: escape to
 * print. Returns buf. */
const char *cpw_proc_label_args(const struct cpw_proc *p, size_t max, char *buf, size_t len);

/* A size in KiB as people read it: "900 KiB", "13.2 MiB", "120 MiB", "3.0 GiB". Returns buf. */
const char *cpw_proc_label_size(double kib, char *buf, size_t len);

/* A helper: it ended before its parent exec'd (a pyenv shim's command substitutions and
 * readlinks, run before it became python), or began and ended between two samples (only
 * its exit record tells of it), or is below such a one, and used at most
 * CPW_HELPER_MAX_CPU_S of CPU, as did all its descendants: it ran a wrapper's errands.
 * A process its parent started and waited for without an exec (a test runner's fast test)
 * keeps its row. Where both its exec and its parent's last are known (exec_event_s, as
 * root), those times alone decide: exec'd before its parent's last exec, a helper. */
#define CPW_HELPER_MAX_CPU_S 0.05

/* Marks folded[i] for each process i of t (order of first sight) that is a helper whose
 * parent is not one, or a helper below such a one: every one of them folds into its
 * nearest ancestor that is no helper (cpw_proc_label_folded_into). folded has
 * cpw_tree_size(t) entries. Returns how many are folded. */
size_t cpw_proc_label_fold(const struct cpw_tree *t, bool *folded);

/* The process a folded process folds into: its nearest ancestor that is not folded; NULL
 * where none is in the tree. */
const struct cpw_proc *cpw_proc_label_folded_into(const struct cpw_tree *t, const bool *folded,
						   const struct cpw_proc *p);

#endif
