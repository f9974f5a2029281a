#!/usr/bin/env bash
# gpuplan 离线安装：租来的实例上 pip 经常超时。第 1 步在网络好的机器上下载，
# 第 2 步在实例上离线安装。
#
# gpuplan offline install: pip on rented instances often times
# out. Step 1 runs where the network is good; step 2 runs on the instance.
set -eu
# The wheel platforms asked for: manylinux_2_28 (glibc 2.28+: Ubuntu 20.04
# and later, where current PyTorch wheels are) and manylinux2014. A host
# older than glibc 2.28 (CentOS 7) sets GPUPLAN_WHEEL_PLATFORMS=manylinux2014_x86_64.
# 实例的 glibc 低于 2.28（如 CentOS 7）时设 GPUPLAN_WHEEL_PLATFORMS=manylinux2014_x86_64。
WHEEL_PLATFORMS="${GPUPLAN_WHEEL_PLATFORMS:-manylinux_2_28_x86_64 manylinux2014_x86_64}"
wheels() {
  local args=() p
  for p in $WHEEL_PLATFORMS; do args+=(--platform "$p"); done
  pip download -d ./packages "${args[@]}" --only-binary=:all: --python-version @PYTHON@ "$@"
}
case "${1:-}" in
  download)
    # Wheels for Linux x86-64 and Python @PYTHON@, into ./packages. A
    # package published as source only is fetched as source (built on the
    # instance, with setuptools and wheel fetched for that).
    if ! wheels -r requirements.txt; then
      echo "Some requirements have no wheel for Linux x86-64: fetching each one alone, as source where there is no wheel."
      echo "部分依赖没有 Linux x86-64 的 wheel：逐个下载，没有 wheel 的下载源码包（在实例上构建）。"
      while IFS= read -r req || [ -n "$req" ]; do
        req=${req%%#*}
        req=$(printf '%s' "$req" | tr -d '\r' | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
        case "$req" in '' | -*) continue ;; esac
        wheels "$req" || pip download -d ./packages --no-binary=:all: --no-deps "$req"
      done < requirements.txt
      wheels setuptools wheel
    fi
    tar czf packages.tar.gz packages
    echo "Upload packages.tar.gz and requirements.txt to the instance, then run: bash $0 install"
    ;;
  install)
    [ -d packages ] || tar xzf packages.tar.gz
    pip install --no-index --find-links ./packages -r requirements.txt
    ;;
  *)
    echo "usage: $0 download | install" >&2
    exit 2
    ;;
esac
