#!/usr/bin/python3
"""validate_json.py: checks JSON documents against a JSON Schema (python3-jsonschema).

    validate_json.py SCHEMA FILE...
    validate_json.py --check-schema SCHEMA

Validates each FILE against SCHEMA with the validator the schema's "$schema" names. Prints
nothing and exits 0 when every file is valid; otherwise prints, for each bad file, its name
and the first error (where in the document, what was wrong) and exits 1. Exit 2 on misuse
or when SCHEMA itself is not a valid schema; 77 (automake's "skip") when python3-jsonschema
is not installed, so callers can tell a missing tool from an invalid document.
"""

import json
import sys

try:
    import jsonschema
    from jsonschema import validators
except ImportError:
    sys.stderr.write("validate_json.py: python3-jsonschema is not installed "
                     "(apt-get install python3-jsonschema)\n")
    sys.exit(77)


def load(path):
    """Reads one JSON file; a parse error is reported like a validation error."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def where(error):
    """The JSON pointer of the failing value, '/' for the document itself."""
    return "/" + "/".join(str(p) for p in error.absolute_path)


def first_error(validator, doc):
    """The most relevant error (jsonschema's best_match), or None when doc is valid."""
    return jsonschema.exceptions.best_match(validator.iter_errors(doc))


def main(argv):
    check_only = len(argv) >= 2 and argv[1] == "--check-schema"
    if check_only:
        argv = argv[1:]
    if len(argv) < 2 or (not check_only and len(argv) < 3):
        sys.stderr.write("usage: validate_json.py SCHEMA FILE...\n"
                         "       validate_json.py --check-schema SCHEMA\n")
        return 2
    try:
        schema = load(argv[1])
    except (OSError, ValueError) as e:
        sys.stderr.write("%s: cannot read schema: %s\n" % (argv[1], e))
        return 2
    cls = validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        sys.stderr.write("%s: not a valid %s schema: %s at %s\n"
                         % (argv[1], cls.__name__, e.message, where(e)))
        return 2
    if check_only:
        return 0
    validator = cls(schema, format_checker=jsonschema.FormatChecker())
    bad = 0
    for path in argv[2:]:
        try:
            doc = load(path)
        except (OSError, ValueError) as e:
            sys.stderr.write("%s: not JSON: %s\n" % (path, e))
            bad += 1
            continue
        err = first_error(validator, doc)
        if err is not None:
            sys.stderr.write("%s: invalid at %s: %s\n" % (path, where(err), err.message))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
