#!/usr/bin/env bash
# Runs every test: lit + FileCheck tests of the passes and tools, then the
# pytest kernel suite (parallel over the machine's cores).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

status=0
echo "== lit test/"
lit -sv test/ || status=1

echo "== pytest test/python"
$PY -m pytest -q -p no:benchmark -n "${SPINE_TEST_JOBS:-2}" test/python
rc=$?
if [ $rc -eq 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
  status=1
elif [ $rc -ne 0 ]; then
  status=1
fi
exit $status
