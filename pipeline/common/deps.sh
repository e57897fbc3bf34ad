#!/usr/bin/env bash
# make deps: install the Debian packages the lab needs, when root; otherwise
# print the one line that would.  A fast no-op when everything is present.
# `deps.sh --list` prints the packages, one a line (pipeline/cloud/cloud.sh
# compares their versions here and on a rented machine).
set -euo pipefail
pkgs=(gcc make pkg-config libc6-dev git ca-certificates
      libpq-dev libssl-dev zlib1g-dev libbz2-dev liblzma-dev libdeflate-dev libcriterion-dev libxgboost-dev
      libevent-dev libjansson-dev postgresql libplplot-dev plplot-driver-cairo
      openssh-client openssh-server chromium jq)
pkgs+=(awscli) # pipeline/cloud/cloud.sh: the machine is rented with Debian's AWS command line client
pkgs+=(parallel) # make measure HOST=a,b,...: GNU parallel spreads the rounds over the hosts (pipeline/measure/multi.h)
pkgs+=(sudo libcap2-bin) # make cloud-setup: a login user's way to nice -10 (setcap), and the tests' non-root login
if [[ ${1:-} == --list ]]; then printf '%s\n' "${pkgs[@]}"; exit 0; fi
missing=()
for p in "${pkgs[@]}"; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $st == "install ok installed" ]] || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "deps: all ${#pkgs[@]} packages present"
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "deps: missing ${missing[*]}; install them with:"
  echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}"
  exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
