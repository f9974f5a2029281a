#!/usr/bin/env bash
# gpuplan 离线安装：租来的实例上 pip 经常超时。第 1 步在网络好的机器上下载，
# 第 2 步在实例上离线安装。
#
# gpuplan offline install: pip on rented instances often times
# out. Step 1 runs where the network is good; step 2 runs on the instance.
set -eu
case "${1:-}" in
  download)
    # Wheels for Linux x86-64 and Python @PYTHON@, into ./packages.
    pip download -r requirements.txt -d ./packages \
      --platform manylinux2014_x86_64 --only-binary=:all: --python-version @PYTHON@
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
