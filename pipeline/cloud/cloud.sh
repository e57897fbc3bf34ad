#!/usr/bin/env bash
# Measure on a rented EC2 machine, one step at a time: `make cloud-STEP`
# runs `bash pipeline/cloud/cloud.sh STEP` (README.md, "Measure on a rented
# machine", gives the order and what each costs).
#
#   check   credentials, region, the instance type's architecture, the
#           Debian 12 image for it, the default VPC; and no other lab
#           machine alive (anything tagged Project=$TAG is listed)
#   access  a key pair (its private key straight into build/cloud/key, mode
#           0600, never printed) and a security group letting port 22 in
#           from MY_CIDR only; both tagged
#   launch  one tagged instance (COUNT=n: n of them, m1 ... mn), in zone AZ
#           when set; no capacity there (InsufficientInstanceCapacity) tries
#           the region's other zones in turn; a refusal of the first machine
#           removes what access made, of a later one keeps those launched;
#           Ctrl-C terminates what the interrupted launch made (its tag
#           Launch=<token>)
#   wait    running, its host key read from the serial console, ssh answers;
#           when it never does, everything is removed
#   setup   the lab's files there, `make deps progs prepare` there, the
#           tester's priority allowed to the login user (nice -10: root, a
#           limit in /etc/security/limits.d, else cap_sys_nice on
#           build/bin/run, with sudo), the prepared files' fingerprints and
#           the packages' versions compared with this machine's
#   smoke   the tiny profile there (`make measure PROFILE=tiny` into
#           build/smoke), checked (every run complete, its manifest
#           re-hashed, each run.json's tester priority the one asked for),
#           then its files removed there; start needs it (SMOKE=0 skips it)
#   start   the schedule (`make measure`) detached there (pipeline/cloud/cloudrun.sh);
#           with several machines, detached here: `make measure HOST=m1,...
#           --far-lab REMOTE_DIR` spreads whole rounds over them (GNU
#           parallel; each machine runs its own build)
#   status  the LAB-PROGRESS lines from the serial console (GetConsoleOutput)
#           only, never a login (with several machines: the progress file
#           here)
#   demo    `make demo` there; refused while the schedule runs
#   fetch   results/ and provenance/ home into the study's own folder (OUT,
#           below; never the published study), every run checked against
#           its run.json and the manifest, then collect, ap, cost, factcheck
#           and report there
#   delete  instance, security group, key pair, each named; refused until
#           fetch has checked the results (FORCE=1 deletes anyway)
#   cost    each machine from launch to deletion: its hours at PRICE_PER_HOUR,
#           its public IPv4 address (IPV4_PER_HOUR) and its disk (DISK_GB at
#           GP3_PER_GB_MONTH, prorated), each part printed; the machines'
#           hours at PRICE_PER_HOUR into OUT/results/cost.json (then
#           factcheck and report again)
#   clean   build/cloud/ removed (make cloud-clean), refused while it lists an
#           instance not terminated, a key pair or a security group
#   study   the whole path in one command: check, access, launch, wait,
#           setup, smoke, start, then a progress line every STUDY_EVERY_S
#           (runs done, the estimated end, the money spent so far) until
#           the schedule is done, fetch, delete, cost.  Each step it finds
#           done (by the state below) it skips, so after a dropped
#           connection or Ctrl-C `make cloud-study` again goes on where it
#           was; it never deletes before fetch has checked the results.
#
# Settings (environment; make passes its command line's):
#   INSTANCE_TYPE (c7g.medium)  REGION (else the aws configuration's)
#   AMI (the newest Debian 12 image for the type's architecture, by Debian's
#   owner id and the name debian-12-<arch>-*)  TAG (timeouts-lab: the
#   Project tag of everything made, and the names lab-$TAG)  MY_CIDR (your
#   address as a.b.c.d/32; needed by access)  PRICE_PER_HOUR (USD; 0.0363,
#   c7g.medium on demand in us-east-1, when the type is c7g.medium)
#   PROFILE (full)  GATE (1)  FORCE (delete without fetch)
#   OUT (the study's folder: by default a fresh CLOUD_DIR/study-<UTC>, named
#   at start and recorded in CLOUD_DIR/out for the later steps; never . nor
#   the repository's own results/ and provenance/, which stay as committed)
#   IPV4_PER_HOUR (0.005 USD per public IPv4 address)  GP3_PER_GB_MONTH
#   (0.08 USD, us-east-1; a month is 730 hours)
#   DISK_GB (16)  MAX_HOURS (12: the machine powers itself off, and so is
#   terminated, after that long, whatever happens here)  WAIT_S (600)
#   SSH_USER (admin, Debian's)  SSH_PORT (22)  REMOTE_DIR (lab, in its home)
#   COUNT (launch: how many machines; 1, or as many as were launched)
#   AZ (launch: the availability zone to try first; else AWS's choice)
#   CLOUD_DIR (build/cloud)  PGURL (passed to collect and ap)
#   SMOKE (1; 0: start without the smoke run)  STUDY_EVERY_S (60: study's
#   progress line)  THROTTLE_TRIES (5: a call AWS throttles, RequestLimitExceeded
#   after the aws client's own retries, is made again that often in all,
#   waiting 2, 4, 8 ... s)
#   Tests only: ENDPOINT_URL (aws --endpoint-url), QUIET, MEASURE_FLAGS;
#   SSH_PORT as a list p1,p2,... (machine k's port: the fake machines
#   share this one's address).
#
# State (build/cloud/, one value per file, written atomically): region,
# arch, ami, ami_name, key_name, key (the private key), group_id,
# group_cidr, out (the study's folder), cost.tsv; and per machine m1/: client_token, launch_tag,
# instance_id, launch_utc, disk_gb,
# address, known_hosts, hostkey_from, setup_done, nice_how, smoke_done, fingerprints.tsv,
# packages-here.tsv, packages-there.tsv, started, fetched, terminated_utc.
# Machines are numbered folders, m1 ... mN (COUNT); with several, the
# split schedule's state is here: ssh_config (the machines as Host
# aliases lab-$TAG-mK), run/ (cloudrun.sh's pid, logs, rc).
#
# Every step is safe to repeat.  Exit 0 done, 1 failed (one line says why),
# 2 a bad setting.
set -Eeuo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/../.."

STEP=${1:-}
INSTANCE_TYPE=${INSTANCE_TYPE:-c7g.medium}
TAG=${TAG:-timeouts-lab}
PROFILE=${PROFILE:-full}
GATE=${GATE:-1}
OUT_GIVEN=${OUT:-}
OUT=$OUT_GIVEN # study_out names it
FORCE=${FORCE:-}
DISK_GB=${DISK_GB:-16}
MAX_HOURS=${MAX_HOURS:-12}
WAIT_S=${WAIT_S:-600}
SSH_USER=${SSH_USER:-admin}
SSH_PORT=${SSH_PORT:-22}
REMOTE_DIR=${REMOTE_DIR:-lab}
CLOUD_DIR=${CLOUD_DIR:-build/cloud}
DEBIAN_OWNER=136693071363
IPV4_PER_HOUR=${IPV4_PER_HOUR:-0.005}
GP3_PER_GB_MONTH=${GP3_PER_GB_MONTH:-0.08}
COUNT=${COUNT:-}
SMOKE=${SMOKE:-1}
STUDY_EVERY_S=${STUDY_EVERY_S:-60}
THROTTLE_TRIES=${THROTTLE_TRIES:-5}
NOTFOUND_WAIT_S=60 # EC2 may not know a new instance's id for a while (eventual consistency)
M=$CLOUD_DIR/m1 # the machine a step works on (several: each in turn, machines)
export AWS_PAGER=""

say() { echo "cloud $STEP: $*"; }
# die and bad may run in a $(...): the mark keeps the ERR trap from adding a line
die() { echo "cloud $STEP: $*" >&2; touch "$CLOUD_DIR/.said.$$" 2> /dev/null || true; exit 1; }
bad() { echo "cloud $STEP: $*" >&2; touch "$CLOUD_DIR/.said.$$" 2> /dev/null || true; exit 2; }
st() { if [[ -f $1 ]]; then cat "$1"; fi; }
st_put() { printf '%s\n' "$2" > "$1.tmp" && mv "$1.tmp" "$1"; }
utc() { date -u +%Y-%m-%dT%H:%M:%SZ; }
# The machines' folders, m1 ... mN: those launched (COUNT=n for launch), at least m1.
machines() {
  local k=1 n=${1:-}
  if [[ -z $n ]]; then
    n=1
    while [[ -d $CLOUD_DIR/m$((n + 1)) ]]; do n=$((n + 1)); done
  fi
  for ((k = 1; k <= n; k++)); do echo "$CLOUD_DIR/m$k"; done
}
count() { machines | wc -l; }
# OUT, the study's folder: as given, else the one this cloud study recorded
# (CLOUD_DIR/out), else a fresh CLOUD_DIR/study-<UTC>; recorded.  An OUT
# given that differs from the recorded one is refused once the schedule has
# started (the study is there).
study_out() {
  local rec
  rec=$(st "$CLOUD_DIR/out")
  if [[ -n $OUT_GIVEN ]]; then
    OUT=$OUT_GIVEN
    if [[ -n $rec && $rec != "$OUT" && -n $(st "$CLOUD_DIR/m1/started") && $STEP != cost ]]; then
      die "this study goes into $rec (recorded in $CLOUD_DIR/out when it started); OUT=$OUT differs:" \
        "leave OUT unset, or set OUT=$rec"
    fi
  elif [[ -n $rec ]]; then
    OUT=$rec
  else
    OUT=$CLOUD_DIR/study-$(date -u +%Y%m%dT%H%M%SZ)
  fi
  mkdir -p "$OUT"
  st_put "$CLOUD_DIR/out" "$OUT"
}
# machine M's ssh port: SSH_PORT, or its k-th value (tests)
port() { local p k=${M##*/m}; IFS=, read -ra p <<< "$SSH_PORT"; echo "${p[k - 1]:-${p[0]}}"; }

# ---- settings ----

check_settings() {
  [[ $INSTANCE_TYPE =~ ^[a-z0-9]+\.[a-z0-9]+$ ]] || bad "INSTANCE_TYPE=$INSTANCE_TYPE: not an instance type"
  [[ $TAG =~ ^[A-Za-z0-9][A-Za-z0-9-]{0,31}$ ]] || bad "TAG=$TAG: letters, digits and -, up to 32"
  [[ -z ${AMI:-} || $AMI =~ ^ami-[0-9a-f]{8,17}$ ]] || bad "AMI=$AMI: not an image id"
  [[ -z ${AZ:-} || $AZ =~ ^[a-z0-9-]+$ ]] || bad "AZ=$AZ: not an availability zone name (e.g. eu-west-1b)"
  [[ $SSH_USER =~ ^[a-z_][a-z0-9_-]*$ ]] || bad "SSH_USER=$SSH_USER: not a user name"
  [[ $REMOTE_DIR =~ ^[A-Za-z0-9._/-]+$ ]] || bad "REMOTE_DIR=$REMOTE_DIR: letters, digits and ._/- only"
  local n
  [[ $SSH_PORT =~ ^[1-9][0-9]{0,4}(,[1-9][0-9]{0,4})*$ ]] || bad "SSH_PORT=$SSH_PORT: not a port"
  [[ -z $COUNT || $COUNT =~ ^([1-9]|1[0-9]|20)$ ]] || bad "COUNT=$COUNT: 1 to 20 machines"
  [[ $SMOKE == 0 || $SMOKE == 1 ]] || bad "SMOKE=$SMOKE: 0 or 1"
  for n in DISK_GB MAX_HOURS WAIT_S STUDY_EVERY_S THROTTLE_TRIES; do
    [[ ${!n} =~ ^[1-9][0-9]{0,5}$ ]] || bad "$n=${!n}: not a positive whole number"
  done
  [[ $GATE == 0 || $GATE == 1 ]] || bad "GATE=$GATE: 0 or 1"
  [[ $PROFILE =~ ^[a-z]+$ ]] || bad "PROFILE=$PROFILE: not a profile name"
  for n in IPV4_PER_HOUR GP3_PER_GB_MONTH; do
    [[ ${!n} =~ ^[0-9]+(\.[0-9]+)?$ ]] || bad "$n=${!n}: not a price in USD"
  done
  if [[ -n $OUT_GIVEN ]] && [[ $(realpath -m "$OUT_GIVEN") == "$(realpath .)" ]]; then
    bad "OUT=$OUT_GIVEN is the published study (results/ and provenance/ as committed): a study on rented" \
      "machines goes to its own folder; leave OUT unset (a fresh $CLOUD_DIR/study-<UTC>) or name another"
  fi
  if [[ -z ${PRICE_PER_HOUR:-} && $INSTANCE_TYPE == c7g.medium ]]; then PRICE_PER_HOUR=0.0363; fi
  [[ -z ${PRICE_PER_HOUR:-} || $PRICE_PER_HOUR =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
    bad "PRICE_PER_HOUR=$PRICE_PER_HOUR: not a price in USD"
  REGION=${REGION:-${AWS_REGION:-${AWS_DEFAULT_REGION:-}}}
  if [[ -z $REGION ]] && command -v aws > /dev/null; then REGION=$(aws configure get region 2> /dev/null || true); fi
  [[ -n $REGION ]] || bad "no region: set REGION=eu-west-1 (for example) or run aws configure"
  [[ $REGION =~ ^[a-z0-9-]+$ ]] || bad "REGION=$REGION: not a region name"
  local r; r=$(st "$CLOUD_DIR/region")
  [[ -z $r || $r == "$REGION" ]] || bad "REGION=$REGION, but what $CLOUD_DIR holds lives in $r: use REGION=$r"
}

my_cidr() {
  [[ -n ${MY_CIDR:-} ]] || bad "MY_CIDR is not set: your address as a.b.c.d/32 (README.md says how to find it)"
  local re='^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})/32$'
  [[ $MY_CIDR =~ $re ]] || bad "MY_CIDR=$MY_CIDR: one address as a.b.c.d/32, nothing wider"
  local i
  for i in 1 2 3 4; do ((10#${BASH_REMATCH[i]} <= 255)) || bad "MY_CIDR=$MY_CIDR: not an address"; done
}

# ---- the AWS command line ----

# ec2 ACTION ARGS...: its output (text); on failure one line naming the
# action and AWS's error code and message (none with EC2_QUIET=1), the code
# in $AWS_CODE, the whole message in $AWS_ERR, and the exit code of aws.
AWS_ERR=$CLOUD_DIR/.aws-err.$$  # this run's ($$ is the same in every subshell)
AWS_CODE=$CLOUD_DIR/.aws-code.$$
# A throttled call (RequestLimitExceeded, Throttling: the aws client has
# retried it already, by its own settings) is made again, up to
# THROTTLE_TRIES in all, waiting 2, 4, 8 ... s, each wait said on stderr.
ec2() {
  local action=$1 err=$AWS_ERR rc=0 try=1 pause=2
  shift
  local cmd=(aws --region "$REGION" --output text)
  [[ -n ${ENDPOINT_URL:-} ]] && cmd+=(--endpoint-url "$ENDPOINT_URL")
  local code
  while :; do
    rc=0
    "${cmd[@]}" ec2 "$action" "$@" 2> "$err" || rc=$?
    if ((rc == 0)); then rm -f "$AWS_CODE"; return 0; fi
    code=$(sed -n 's/^An error occurred (\([^)]*\)).*/\1/p' "$err" | head -1)
    case $code in
      RequestLimitExceeded | Throttling | ThrottlingException) ;;
      *) break ;;
    esac
    ((try < THROTTLE_TRIES)) || break
    echo "cloud $STEP: aws ec2 $action: $code (AWS throttles this account's calls): trying again in $pause s" \
      "($((try + 1)) of $THROTTLE_TRIES)" >&2
    sleep "$pause"
    try=$((try + 1))
    pause=$((pause * 2))
  done
  if grep -q 'Unable to locate credentials\|could not be found.*profile\|NoCredentialProviders' "$err"; then
    die "no AWS credentials: run aws configure (or set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
  fi
  echo "${code:-unknown}" > "$AWS_CODE"
  if [[ -z ${EC2_QUIET:-} ]]; then
    local why
    why=$(grep -v '^\s*$' "$err" | tail -1 | sed 's/^An error occurred //' || true)
    echo "cloud $STEP: aws ec2 $action failed: ${why:-no answer (exit $rc: interrupted?)}" >&2
  fi
  return "$rc"
}
aws_code() { st "$AWS_CODE"; }
none() { [[ -z $1 || $1 == None ]]; }

instance_state() { # id -> "state address" (address None when it has none)
  ec2 describe-instances --instance-ids "$1" \
    --query 'Reservations[0].Instances[0].[State.Name,PublicIpAddress]'
}
# As instance_state, but an id EC2 does not know yet (InvalidInstanceID.NotFound
# within NOTFOUND_WAIT_S of machine M's launch: eventual consistency) is asked again.
seen_state() {
  local t0=$SECONDS out
  while :; do
    if out=$(EC2_QUIET=1 instance_state "$1"); then echo "$out"; return 0; fi
    [[ $(aws_code) == InvalidInstanceID.NotFound ]] && just_launched && ((SECONDS - t0 < NOTFOUND_WAIT_S)) || break
    sleep 2
  done
  instance_state "$1" # once more, saying why it failed
}
# 0 when machine M was launched less than NOTFOUND_WAIT_S ago.
just_launched() {
  local l
  l=$(st "$M/launch_utc")
  [[ -n $l ]] && (($(date -u +%s) - $(date -u -d "$l" +%s) < NOTFOUND_WAIT_S))
}
# Why machine M's instance is not running, as EC2 says (StateReason), with
# what it means when the machine switched itself off.
why_not_running() {
  local r
  r=$(EC2_QUIET=1 ec2 describe-instances --instance-ids "$(st "$M/instance_id")" \
    --query 'Reservations[0].Instances[0].StateReason.Message') || r=""
  none "$r" && r=""
  case $r in
    *InstanceInitiatedShutdown*) echo "${r}: the machine switched itself off (the poweroff set MAX_HOURS after its launch," \
      "or a shutdown there)" ;;
    *) echo "${r:-EC2 gives no reason}" ;;
  esac
}

# Everything tagged Project=$TAG that still exists, one line each:
# "instance ID STATE", "security-group ID NAME", "key-pair NAME".
inventory() {
  ec2 describe-instances --filters "Name=tag:Project,Values=$TAG" \
    "Name=instance-state-name,Values=pending,running,stopping,stopped,shutting-down" \
    --query 'Reservations[].Instances[].[InstanceId,State.Name]' | sed '/^$/d; s/^/instance /'
  ec2 describe-security-groups --filters "Name=tag:Project,Values=$TAG" \
    --query 'SecurityGroups[].[GroupId,GroupName]' | sed '/^$/d; s/^/security-group /'
  ec2 describe-key-pairs --filters "Name=tag:Project,Values=$TAG" --query 'KeyPairs[].[KeyName]' |
    sed '/^$/d; s/^/key-pair /'
}

# What to type to remove each line of inventory's by hand.
by_hand() {
  local kind id rest
  while read -r kind id rest; do
    case $kind in
      instance) echo "  aws ec2 terminate-instances --region $REGION --instance-ids $id" ;;
      security-group) echo "  aws ec2 delete-security-group --region $REGION --group-id $id" ;;
      key-pair) echo "  aws ec2 delete-key-pair --region $REGION --key-name $id" ;;
    esac
  done
}

# ---- the image ----

find_image() {
  local arch deb
  arch=$(ec2 describe-instance-types --instance-types "$INSTANCE_TYPE" \
    --query 'InstanceTypes[0].ProcessorInfo.SupportedArchitectures') || die "no instance type $INSTANCE_TYPE in $REGION"
  case " $(tr '\t' ' ' <<< "$arch") " in # an old type may list i386 too
    *" arm64 "*) arch=arm64 deb=arm64 ;;
    *" x86_64 "*) arch=x86_64 deb=amd64 ;;
    *) die "$INSTANCE_TYPE: architecture $arch, for which there is no Debian 12 image here" ;;
  esac
  local found
  if [[ -n ${AMI:-} ]]; then
    found=$(ec2 describe-images --image-ids "$AMI" --query 'Images[0].[ImageId,Name,Architecture]')
  else
    found=$(ec2 describe-images --owners "$DEBIAN_OWNER" \
      --filters "Name=name,Values=debian-12-$deb-*" "Name=architecture,Values=$arch" "Name=state,Values=available" \
      --query 'sort_by(Images,&CreationDate)[-1].[ImageId,Name,Architecture]')
  fi
  local id name iarch
  read -r id name iarch <<< "$found"
  none "${id:-}" && die "no Debian 12 image (owner $DEBIAN_OWNER, debian-12-$deb-*) in $REGION; set AMI="
  [[ $iarch == "$arch" ]] || die "AMI $id is $iarch, $INSTANCE_TYPE is $arch"
  st_put "$CLOUD_DIR/arch" "$arch"
  st_put "$CLOUD_DIR/ami" "$id"
  st_put "$CLOUD_DIR/ami_name" "$name"
}

# ---- steps ----

step_check() {
  local inv others="" mine=""
  inv=$(inventory)
  for M in $(machines); do mine+=" $(st "$M/instance_id")"; done
  find_image
  local vpc
  vpc=$(ec2 describe-vpcs --filters Name=is-default,Values=true --query 'Vpcs[0].VpcId')
  none "$vpc" && die "$REGION has no default VPC (the script launches into it)"
  say "region $REGION, $INSTANCE_TYPE ($(st "$CLOUD_DIR/arch")), image $(st "$CLOUD_DIR/ami")" \
    "$(st "$CLOUD_DIR/ami_name"), default VPC present"
  if [[ -n $inv ]]; then
    say "tagged Project=$TAG now:"
    sed 's/^/  /' <<< "$inv"
  else
    say "nothing tagged Project=$TAG exists"
  fi
  others=$({ grep '^instance ' <<< "$inv" || true; } | while read -r _ id rest; do
    [[ " $mine " == *" $id "* ]] || echo "instance $id $rest"; done)
  if [[ -n $others ]]; then
    echo "cloud check: another lab machine is alive (not this checkout's); delete it first:" >&2
    by_hand <<< "$others" >&2
    exit 1
  fi
  if [[ -n ${MY_CIDR:-} ]]; then my_cidr; say "MY_CIDR $MY_CIDR"; else say "MY_CIDR not set (access needs it)"; fi
  say "ok"
}

make_key() {
  local name=lab-$TAG key=$CLOUD_DIR/key
  if [[ -n $(st "$CLOUD_DIR/key_name") && -s $key ]]; then say "key pair $name exists (private key $key)"; return; fi
  rm -f "$key.tmp"
  # the key material goes straight into a file only this user can read
  if ! (umask 077 && ec2 create-key-pair --key-name "$name" --key-type ed25519 \
    --tag-specifications "ResourceType=key-pair,Tags=[{Key=Project,Value=$TAG},{Key=Name,Value=$name}]" \
    --query KeyMaterial > "$key.tmp"); then
    rm -f "$key.tmp"
    [[ $(aws_code) == InvalidKeyPair.Duplicate ]] &&
      die "a key pair $name exists in $REGION but its private key is not here: delete it" \
        "(aws ec2 delete-key-pair --region $REGION --key-name $name) or choose another TAG"
    die "no key pair made"
  fi
  chmod 600 "$key.tmp"
  mv "$key.tmp" "$key"
  st_put "$CLOUD_DIR/key_name" "$name"
  say "made key pair $name (private key in $key, mode 0600)"
}

rule() { echo "IpProtocol=tcp,FromPort=22,ToPort=22,IpRanges=[{CidrIp=$1,Description=ssh from MY_CIDR}]"; }

make_group() {
  local name=lab-$TAG sg vpc
  sg=$(st "$CLOUD_DIR/group_id")
  if [[ -z $sg ]]; then
    vpc=$(ec2 describe-vpcs --filters Name=is-default,Values=true --query 'Vpcs[0].VpcId')
    none "$vpc" && die "$REGION has no default VPC"
    sg=$(ec2 create-security-group --group-name "$name" --vpc-id "$vpc" \
      --description "timeouts lab: ssh from one address" \
      --tag-specifications "ResourceType=security-group,Tags=[{Key=Project,Value=$TAG},{Key=Name,Value=$name}]" \
      --query GroupId) || die "no security group made"
    st_put "$CLOUD_DIR/group_id" "$sg"
    say "made security group $sg ($name)"
  fi
  local old
  old=$(st "$CLOUD_DIR/group_cidr")
  if [[ $old != "$MY_CIDR" ]]; then
    if ! EC2_QUIET=1 ec2 authorize-security-group-ingress --group-id "$sg" --ip-permissions "$(rule "$MY_CIDR")" \
      > /dev/null; then
      [[ $(aws_code) == InvalidPermission.Duplicate ]] || die "port 22 not opened: $(tail -1 "$AWS_ERR")"
    fi
    if [[ -n $old ]]; then
      ec2 revoke-security-group-ingress --group-id "$sg" --ip-permissions "$(rule "$old")" > /dev/null ||
        die "could not close port 22 to the old address $old"
      say "closed port 22 to $old"
    fi
    st_put "$CLOUD_DIR/group_cidr" "$MY_CIDR"
  fi
  say "security group $sg lets port 22 in from $MY_CIDR only"
}

step_access() {
  my_cidr
  st_put "$CLOUD_DIR/region" "$REGION"
  make_key
  make_group
}

# One RunInstances for machine M in zone $1 (empty: AWS's choice): "id launch-time".
run_instance() {
  local place=()
  [[ -z ${1:-} ]] || place=(--placement "AvailabilityZone=$1")
  ec2 run-instances --image-id "$(st "$CLOUD_DIR/ami")" --instance-type "$INSTANCE_TYPE" --count 1 \
    --key-name "$(st "$CLOUD_DIR/key_name")" --security-group-ids "$(st "$CLOUD_DIR/group_id")" \
    --client-token "$(st "$M/client_token")" --instance-initiated-shutdown-behavior terminate "${place[@]}" \
    --user-data "$(printf '#!/bin/sh\nshutdown -h +%d\n' $((MAX_HOURS * 60)))" --metadata-options HttpTokens=required \
    --block-device-mappings "DeviceName=$LAUNCH_ROOT,Ebs={VolumeSize=$DISK_GB,VolumeType=gp3,DeleteOnTermination=true}" \
    --tag-specifications \
    "ResourceType=instance,Tags=[{Key=Project,Value=$TAG},{Key=Name,Value=lab-$TAG},{Key=Launch,Value=$(st "$M/launch_tag")}]" \
    "ResourceType=volume,Tags=[{Key=Project,Value=$TAG}]" \
    --query 'Instances[0].[InstanceId,LaunchTime]'
}

# Ctrl-C (or TERM) during a launch: whatever carries this launch's tag is
# terminated (a RunInstances may have made it without its answer arriving),
# the machine's folder goes; the machines launched before it are kept.
launch_interrupted() {
  trap '' INT TERM
  local tag ids id
  tag=$(st "$M/launch_tag")
  say "interrupted: removing what the launch of ${M##*/} made (tag Launch=$tag)"
  ids=$(EC2_QUIET=1 ec2 describe-instances --filters "Name=tag:Launch,Values=$tag" \
    "Name=instance-state-name,Values=pending,running,stopping,stopped" --query 'Reservations[].Instances[].InstanceId' |
    tr '\t' '\n') || ids=""
  for id in $ids; do
    st_put "$M/instance_id" "$id"
    remove_instance || echo "cloud $STEP: $id may still run: aws ec2 terminate-instances --region $REGION --instance-ids $id" >&2
  done
  if [[ -z $ids ]]; then # EC2 may list a new instance only a little later
    local t0=$SECONDS
    say "${M##*/}: no instance carries the tag yet; looking again for 20 s (EC2 lists a new one late at times)"
    while [[ -z $ids ]] && ((SECONDS - t0 < 20)); do
      sleep 3
      ids=$(EC2_QUIET=1 ec2 describe-instances --filters "Name=tag:Launch,Values=$tag" \
        "Name=instance-state-name,Values=pending,running,stopping,stopped" \
        --query 'Reservations[].Instances[].InstanceId' | tr '\t' '\n') || ids=""
    done
    for id in $ids; do
      st_put "$M/instance_id" "$id"
      remove_instance || echo "cloud $STEP: $id may still run: aws ec2 terminate-instances --region $REGION --instance-ids $id" >&2
    done
  fi
  [[ -n $ids ]] || say "${M##*/}: no instance carries the tag: nothing was made"
  rm -rf "$M"
  say "the key pair and the security group stay (make cloud-launch again, or make cloud-delete)"
  exit 130
}

step_launch() {
  local n=${COUNT:-$(count)}
  for M in $(machines "$n"); do launch_one; done
}

launch_one() {
  local id
  id=$(st "$M/instance_id")
  if [[ -n $id ]]; then
    local s
    s=$(seen_state "$id") || die "cannot see $id"
    read -r s _ <<< "$s"
    case $s in
      pending | running) say "${M##*/}: $id is already $s"; return ;;
      *) die "$id is $s: make cloud-delete first" ;;
    esac
  fi
  [[ -s $CLOUD_DIR/key && -n $(st "$CLOUD_DIR/group_id") ]] || die "no key pair or security group: make cloud-access first"
  find_image # INSTANCE_TYPE or AMI may have changed since check
  if [[ -n $(st "$M/terminated_utc") ]]; then rm -rf "$M"; fi # a new machine: the last one's times go
  # a new first machine: a new study (the last one's folder stays, no longer the default)
  [[ ${M##*/} != m1 || ! -f $CLOUD_DIR/out ]] || { say "the last study stays in $(st "$CLOUD_DIR/out");" \
    "the next start names a fresh folder"; rm -f "$CLOUD_DIR/out"; }
  mkdir -p "$M"
  # the same token on a repeat gives back the same instance, never a second;
  # the launch's tag (Launch=...) finds what it made if it is interrupted
  [[ -n $(st "$M/client_token") ]] || st_put "$M/client_token" "lab-$TAG-$(date -u +%s)-$RANDOM"
  [[ -n $(st "$M/launch_tag") ]] || st_put "$M/launch_tag" "$(st "$M/client_token")"
  local out code z zones ok=0
  LAUNCH_ROOT=$(ec2 describe-images --image-ids "$(st "$CLOUD_DIR/ami")" --query 'Images[0].RootDeviceName')
  trap 'launch_interrupted' INT TERM
  if out=$(run_instance "${AZ:-}"); then ok=1; fi
  code=$(aws_code)
  if ((!ok)) && [[ $code == InsufficientInstanceCapacity || $code == Unsupported ]]; then
    # no room for the type in that zone: the region's other zones, in turn
    # the zone that was full: AZ, or the one AWS chose (its message names it)
    local full=${AZ:-$(sed -n 's/.*Availability Zone you requested (\([a-z0-9-]*\)).*/\1/p' "$AWS_ERR" | head -1)}
    zones=$(ec2 describe-availability-zones --filters Name=state,Values=available Name=zone-type,Values=availability-zone \
      --query 'AvailabilityZones[].ZoneName' | tr '\t' '\n') || zones=""
    local where=${full:+in $full}
    for z in $zones; do
      [[ $z != "$full" ]] || continue
      say "${M##*/}: $code ${where:-in the zone AWS chose}: trying $z"
      st_put "$M/client_token" "lab-$TAG-$(date -u +%s)-$RANDOM" # a token names one request's settings
      if out=$(run_instance "$z"); then
        ok=1
        AZ=$z # the next machines of this launch try it first
        break
      fi
      where="in $z"
      code=$(aws_code)
      [[ $code == InsufficientInstanceCapacity || $code == Unsupported ]] || break
    done
  fi
  trap - INT TERM
  if ((!ok)); then
    [[ $code != VcpuLimitExceeded ]] || echo "cloud $STEP: VcpuLimitExceeded is the region's quota of vCPUs" \
      "(Service Quotas, EC2, Running On-Demand Standard instances): ask for more there; another zone would not help" >&2
    rm -rf "$M"
    local k others=""
    for k in $(machines); do [[ -z $(st "$k/instance_id") ]] || others+=" ${k##*/}"; done
    if [[ -n $others ]]; then
      say "the launch of ${M##*/} was refused ($code);$others launched and kept: make cloud-launch again later" \
        "(it launches the missing ones), or make cloud-delete FORCE=1"
      exit 1
    fi
    say "the launch was refused ($code); removing what access made"
    remove_all
    exit 1
  fi
  local launched
  read -r id launched <<< "$out"
  st_put "$M/instance_id" "$id"
  st_put "$M/disk_gb" "$DISK_GB"
  st_put "$M/launch_utc" "$(date -u -d "$launched" +%Y-%m-%dT%H:%M:%SZ)"
  say "${M##*/}: launched $id ($INSTANCE_TYPE, $(st "$CLOUD_DIR/ami_name")) at $(st "$M/launch_utc");" \
    "it powers itself off after $MAX_HOURS h whatever happens"
}

# SSH_OPTS: how to reach the machine (its own key, its pinned host key).
set_ssh_opts() {
  SSH_OPTS=(-i "$CLOUD_DIR/key" -p "$(port)" -o IdentitiesOnly=yes -o BatchMode=yes
    -o UserKnownHostsFile="$M/known_hosts" -o StrictHostKeyChecking="${1:-yes}" -o HostKeyAlias="lab-$TAG-${M##*/}"
    -o ConnectTimeout=10 -o ServerAliveInterval=30 -o ServerAliveCountMax=6 -o LogLevel=ERROR)
}
# far [-t] CMD: CMD run there by the login shell, in the login's home.
far() {
  set_ssh_opts
  ssh "${SSH_OPTS[@]}" "$SSH_USER@$(st "$M/address")" "$@"
}

# The host keys as cloud-init writes them to the serial console.
pin_host_key() {
  local out keys
  out=$(EC2_QUIET=1 ec2 get-console-output --instance-id "$1" --latest --query Output ||
    EC2_QUIET=1 ec2 get-console-output --instance-id "$1" --query Output) || return 1
  keys=$(tr -d '\r' <<< "$out" | sed 's/^ec2: //' | awk '/-----BEGIN SSH HOST KEY KEYS-----/ { f = 1; next }
    /-----END SSH HOST KEY KEYS-----/ { f = 0 } f && /^(ssh-|ecdsa-)[A-Za-z0-9@.-]+ [A-Za-z0-9+\/=]+/')
  [[ -n $keys ]] || return 1
  awk -v a="lab-$TAG-${M##*/}" '{ print a, $1, $2 }' <<< "$keys" > "$M/known_hosts.tmp"
  mv "$M/known_hosts.tmp" "$M/known_hosts"
  st_put "$M/hostkey_from" console
}

step_wait() {
  for M in $(machines); do wait_one; done
}

wait_one() {
  local id s addr t0=$SECONDS
  id=$(st "$M/instance_id")
  [[ -n $id ]] || die "no machine: make cloud-launch first"
  while :; do
    s=$(seen_state "$id") || die "cannot see $id"
    read -r s addr <<< "$s"
    case $s in
      running) break ;;
      pending) ;;
      *) say "$id is $s: $(why_not_running)"; fail_half_way ;;
    esac
    ((SECONDS - t0 < WAIT_S)) || { say "$id still $s after $WAIT_S s"; fail_half_way; }
    sleep 2
  done
  none "$addr" && { say "$id runs without a public address"; fail_half_way; }
  st_put "$M/address" "$addr"
  say "$id is running; waiting for ssh"
  local strict
  while :; do
    [[ -s $M/known_hosts ]] || pin_host_key "$id" || true
    strict=yes
    if [[ ! -s $M/known_hosts ]] && ((SECONDS - t0 > WAIT_S / 2)); then
      strict=accept-new # no keys on the console: the first login's key is kept
      st_put "$M/hostkey_from" "first login"
    fi
    set_ssh_opts "$strict"
    if [[ -s $M/known_hosts || $strict == accept-new ]] &&
      timeout 30 ssh "${SSH_OPTS[@]}" -o ConnectTimeout=5 "$SSH_USER@$addr" true 2> "$M/ssh.err"; then
      break
    fi
    ((SECONDS - t0 < WAIT_S)) || { say "ssh to $id did not answer within $WAIT_S s"; fail_half_way; }
    sleep 2
  done
  say "${M##*/}: ssh answers on $id (host key from the $(st "$M/hostkey_from"))"
}

# A failure before anything was measured: everything goes.
fail_half_way() {
  say "removing everything this checkout made"
  remove_all || true
  exit 1
}

# ---- removal ----

remove_instance() {
  local id s t0=$SECONDS
  id=$(st "$M/instance_id")
  [[ -n $id ]] || return 0
  until EC2_QUIET=1 ec2 terminate-instances --instance-ids "$id" > /dev/null; do
    [[ $(aws_code) == InvalidInstanceID.NotFound ]] || { echo "cloud $STEP: $id not terminated" >&2; return 1; }
    # unknown: gone long ago, or too new to be known yet
    just_launched && ((SECONDS - t0 < NOTFOUND_WAIT_S)) || break
    sleep 2
  done
  [[ -n $(st "$M/terminated_utc") ]] || st_put "$M/terminated_utc" "$(utc)"
  while :; do
    s=$(EC2_QUIET=1 instance_state "$id") || s=terminated # gone from the listing
    read -r s _ <<< "$s"
    [[ $s == terminated ]] && break
    ((SECONDS - t0 < WAIT_S)) || { echo "cloud $STEP: $id still $s after $WAIT_S s" >&2; return 1; }
    sleep 2
  done
  rm -f "$M/instance_id" "$M/address" "$M/known_hosts" "$M/client_token"
  say "removed instance $id (terminated)"
}

remove_group() {
  local sg t0=$SECONDS
  sg=$(st "$CLOUD_DIR/group_id")
  [[ -n $sg ]] || return 0
  # a group stays in use for a little while after its instance terminated
  until EC2_QUIET=1 ec2 delete-security-group --group-id "$sg" > /dev/null; do
    case $(aws_code) in
      InvalidGroup.NotFound) break ;;
      DependencyViolation) ((SECONDS - t0 < WAIT_S)) || { echo "cloud $STEP: $sg still in use" >&2; return 1; } ;;
      *) echo "cloud $STEP: $sg not deleted: $(tail -1 "$AWS_ERR")" >&2; return 1 ;;
    esac
    sleep 3
  done
  rm -f "$CLOUD_DIR/group_id" "$CLOUD_DIR/group_cidr"
  say "removed security group $sg (lab-$TAG)"
}

remove_key() {
  local name
  name=$(st "$CLOUD_DIR/key_name")
  [[ -n $name ]] || return 0
  ec2 delete-key-pair --key-name "$name" > /dev/null || return 1
  rm -f "$CLOUD_DIR/key" "$CLOUD_DIR/key_name"
  say "removed key pair $name and its private key $CLOUD_DIR/key"
}

# Instance, group, key, each named; then whatever still carries the tag,
# with the commands to remove it by hand.  1 when anything is left.
remove_all() {
  local ok=0 m=$M
  for M in $(machines); do remove_instance || ok=1; done
  M=$m
  remove_group || ok=1
  remove_key || ok=1
  local left
  left=$(inventory | grep -v '^instance [^ ]* shutting-down' || true)
  if [[ -n $left ]]; then
    echo "cloud $STEP: still tagged Project=$TAG in $REGION; delete by hand:" >&2
    by_hand <<< "$left" >&2
    return 1
  fi
  say "nothing tagged Project=$TAG is left in $REGION"
  ((ok != 0)) || rm -f "$CLOUD_DIR/region" # nothing lives there any more
  return $ok
}

step_delete() {
  if [[ -z $(st "$M/fetched") && $FORCE != 1 ]] && [[ -n $(st "$M/instance_id") ]]; then
    die "the results are not home yet: make cloud-fetch first (it checks them), or FORCE=1 to delete without them"
  fi
  remove_all
}

# ---- on the machine ----

need_ssh() {
  [[ -n $(st "$M/instance_id") && -s $M/known_hosts ]] || die "no machine that answers: make cloud-launch cloud-wait first"
  far true 2> "$M/ssh.err" || die "ssh to $(st "$M/instance_id") does not answer: $(tail -1 "$M/ssh.err")"
}

# "running", "done RC" or "none": the detached measure there.
far_run_state() {
  far "cd $REMOTE_DIR/build/cloud-run 2>/dev/null || { echo none; exit 0; }
    if [ -f pid ] && kill -0 \$(cat pid) 2>/dev/null; then echo running
    elif [ -f rc ]; then echo done \$(cat rc); else echo none; fi"
}

# The lab's files as git sees them (tracked and new, not ignored), and the
# real shop data when it is there, into REMOTE_DIR (its build/, results/
# and provenance/ kept).
send_source() {
  local list=$CLOUD_DIR/files.lst
  if git rev-parse --git-dir > /dev/null 2>&1; then
    # (not the published study under results/ and provenance/: the study
    # there starts empty, or measure there would continue this one; nor a
    # study under way kept in measuring/, measuring/README.md)
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
      case $f in results/README.md | provenance/README.md) ;; results/* | provenance/* | measuring/*) continue ;; esac
      [[ -f $f ]] && printf '%s\0' "$f"
    done > "$list"
    st_put "$M/source_commit" "$(git rev-parse HEAD)"
    if [[ -n $(git status --porcelain) ]]; then st_put "$M/source_dirty" true; else st_put "$M/source_dirty" false; fi
  else
    find . -path ./build -prune -o -path ./results -prune -o -path ./provenance -prune -o -type f -print0 > "$list"
  fi
  [[ -f data/online_retail_II.csv ]] && printf '%s\0' data/online_retail_II.csv >> "$list"
  tar --null -T "$list" -cf - | far "mkdir -p $REMOTE_DIR && cd $REMOTE_DIR &&
    find . -mindepth 1 -maxdepth 1 ! -name build ! -name results ! -name provenance -exec rm -rf {} + &&
    tar -xf -" || die "copying the lab's files there failed"
  say "sent $(tr -cd '\0' < "$list" | wc -c) files to $REMOTE_DIR there"
}

# One phase of setup there, its output in $M/setup.log.
far_phase() {
  local what=$1 todo=$2 t0=$SECONDS
  echo "== $what" >> "$M/setup.log"
  if ! far "cd $REMOTE_DIR && $todo" >> "$M/setup.log" 2>&1; then
    tail -20 "$M/setup.log" | sed 's/^/  | /' >&2
    die "$what failed there (the whole log: $M/setup.log)"
  fi
  say "$what there: done in $((SECONDS - t0)) s"
}

# The prepared files there (their manifest) against the same files here.
compare_prepared() {
  if [[ ! -f build/prep/summary.json ]]; then
    make --no-print-directory prepare OUT="$CLOUD_DIR/here" > "$M/prepare-here.log" 2>&1 ||
      die "make prepare here failed (see $M/prepare-here.log)"
  fi
  far "cat $REMOTE_DIR/provenance/manifest-prepare.tsv" > "$M/manifest-there.tsv" || die "no manifest-prepare.tsv there"
  local path sha here
  tail -n +2 "$M/manifest-there.tsv" | while IFS=$'\t' read -r path _ sha; do
    here=missing
    [[ -f $path ]] && here=$(sha256sum "$path" | cut -c1-64)
    printf '%s\t%s\t%s\n' "$path" "$here" "$sha"
  done > "$M/fingerprints.tsv"
  local n differ
  n=$(wc -l < "$M/fingerprints.tsv")
  differ=$(awk -F'\t' '$2 != $3 { print $1 }' "$M/fingerprints.tsv")
  if [[ -z $differ ]]; then
    say "the $n prepared files and inputs there are the same as here (sha256)"
  else
    say "$(wc -l <<< "$differ") of $n prepared files differ from here: $(tr '\n' ' ' <<< "$differ")" \
      "(another architecture may score differently; fetch names them in provenance/cloud.json)"
  fi
}

compare_packages() {
  local pk
  pk=$(bash pipeline/common/deps.sh --list | tr '\n' ' ')
  dpkg-query -W -f='${Package}\t${Version}\n' $pk > "$M/packages-here.tsv" 2> /dev/null || true
  far "dpkg-query -W -f='\${Package}\t\${Version}\n' $pk" > "$M/packages-there.tsv" 2> /dev/null || true
  uname -m > "$M/machine-here"
  far "uname -m" > "$M/machine-there"
  local d
  d=$(join -t $'\t' -a 1 -a 2 -e missing -o 0,1.2,2.2 <(sort "$M/packages-here.tsv") <(sort "$M/packages-there.tsv") |
    awk -F'\t' '$2 != $3' | wc -l)
  say "there: $(cat "$M/machine-there"), here: $(cat "$M/machine-here"); $d of the lab's packages differ in version"
}

step_setup() {
  for M in $(machines); do
    (($(count) == 1)) || say "${M##*/}:"
    setup_one
  done
}

setup_one() {
  need_ssh
  [[ $(far_run_state) != running ]] || die "the measurement runs there: setup waits until it is done"
  : > "$M/setup.log"
  rm -f "$M/setup_done" "$M/smoke_done" # what it built may change: smoke again after it
  send_source
  far_phase "waiting for the machine's own start-up (cloud-init)" \
    "if command -v cloud-init >/dev/null; then cloud-init status --wait >/dev/null 2>&1 || true; fi"
  far_phase "make deps (Debian packages)" \
    "if [ \$(id -u) = 0 ]; then bash pipeline/common/deps.sh; else sudo -n bash pipeline/common/deps.sh; fi"
  far_phase "make progs" "make -j\$(nproc) progs"
  allow_nice
  far_phase "make prepare" "make prepare"
  compare_prepared
  compare_packages
  st_put "$M/setup_done" "$(utc)"
}

# Before the schedule starts: OUT holds nothing measured, or this study's
# own runs (a start again resumes it).
out_is_free() {
  [[ -z $(st "$CLOUD_DIR/m1/started") ]] || return 0
  if [[ -n $(ls -A "$OUT/results/raw" 2> /dev/null) || -n $(ls -A "$OUT/provenance/runs" 2> /dev/null) ]]; then
    die "OUT=$OUT holds a study measured elsewhere: leave OUT unset (a fresh $CLOUD_DIR/study-<UTC>) or name an" \
      "empty folder"
  fi
}

# The tester's priority there (run --tester-nice, -10): the login user may
# lower it (root; an RLIMIT_NICE of 30; or build/bin/run holding
# cap_sys_nice, which run's children keep until they exec, as the tester's
# priority is set in its child); else the schedule is refused, as its runs
# would be measured at another priority.  Prints how: root, limits.d or cap_sys_nice.
far_nice_ok() {
  far "cd $REMOTE_DIR 2>/dev/null; n=\$(ulimit -e)
    if [ \$(id -u) = 0 ]; then echo root
    elif [ \"\$n\" = unlimited ] || [ \"\$n\" -ge 30 ]; then echo limits.d
    elif /sbin/getcap build/bin/run 2>/dev/null | grep -q cap_sys_nice; then echo cap_sys_nice
    else exit 1; fi"
}

# setup: the login user allowed nice -10, by a limit in every new session
# (pam_limits reads /etc/security/limits.d), else, where that limit does not
# take (no pam_limits for sshd, or a container whose root may not raise
# limits), by cap_sys_nice on build/bin/run (after make progs: a relink drops it).
allow_nice() {
  local how
  if how=$(far_nice_ok); then
    st_put "$M/nice_how" "$how"
    say "the tester's priority: nice -10 allowed to $SSH_USER there ($how)"
    return
  fi
  far_phase "the tester's priority (a limit of nice -10 for $SSH_USER)" \
    "echo '$SSH_USER - nice -10' | sudo -n tee /etc/security/limits.d/90-lab-nice.conf >/dev/null"
  if ! how=$(far_nice_ok); then
    far_phase "the tester's priority (cap_sys_nice on build/bin/run: the limit did not take in a new login)" \
      "sudo -n /sbin/setcap cap_sys_nice+ep build/bin/run"
    how=$(far_nice_ok) || die "the tester's priority (nice -10) cannot be set there: neither a limit in" \
      "/etc/security/limits.d nor cap_sys_nice on build/bin/run let $SSH_USER lower it (see $M/setup.log)"
  fi
  st_put "$M/nice_how" "$how"
  say "the tester's priority: nice -10 allowed to $SSH_USER there ($how)"
}

step_start() {
  if (($(count) > 1)); then start_split; return; fi
  need_ssh
  [[ -n $(st "$M/setup_done") ]] || die "make cloud-setup first"
  if [[ $(far_run_state) == running ]]; then say "the measurement already runs there (make cloud-status)"; return; fi
  study_out
  out_is_free
  need_smoke
  far_nice_ok > /dev/null || die "the tester's priority (nice -10) cannot be set there: $SSH_USER is not root, its" \
    "limit (ulimit -e) is below 30 and build/bin/run lacks cap_sys_nice; make cloud-setup sets it (with sudo;" \
    "see $M/setup.log)"
  local env
  env=$(printf 'PROFILE=%q GATE=%q' "$PROFILE" "$GATE")
  [[ -n ${QUIET:-} ]] && env+=$(printf ' QUIET=%q' "$QUIET")
  [[ -n ${MEASURE_FLAGS:-} ]] && env+=$(printf ' MEASURE_FLAGS=%q' "$MEASURE_FLAGS")
  # setsid and nohup, every stream away from ssh: the measurement outlives the connection
  far "cd $REMOTE_DIR && { $env setsid nohup bash pipeline/cloud/cloudrun.sh > build/cloud-run.out 2>&1 < /dev/null & }" ||
    die "could not start the measurement there"
  sleep 1
  local s
  s=$(far_run_state)
  [[ $s == running || $s == done* ]] || die "the measurement did not start there (see $REMOTE_DIR/build/cloud-run.out there)"
  st_put "$M/started" "$(utc) $PROFILE"
  say "the $PROFILE profile runs there, detached (a dropped ssh does not stop it): make cloud-status;" \
    "fetch brings it into $OUT"
}

# The LAB-PROGRESS lines since the last start: the serial console's (one
# machine), or the progress file here (the split schedule; progress_from
# names the source).  Never a login.
progress_lines() {
  local id out lines
  id=$(st "$M/instance_id")
  if (($(count) > 1)); then
    lines=$(cat "$CLOUD_DIR/run/progress.log" 2> /dev/null || true)
  else
    out=$(EC2_QUIET=1 ec2 get-console-output --instance-id "$id" --latest --query Output ||
      EC2_QUIET=1 ec2 get-console-output --instance-id "$id" --query Output || true)
    lines=$(tr -d '\r' <<< "$out" | grep -o 'LAB-PROGRESS .*' || true)
  fi
  awk '/^LAB-PROGRESS [^ ]+ start / { n = 0 } { l[++n] = $0 } END { for (i = 1; i <= n; i++) print l[i] }' \
    <<< "$lines"
}
progress_from() {
  if (($(count) > 1)); then echo "progress file here: the split schedule runs from here"; else echo "serial console"; fi
}

# "" when every machine runs, else one line naming each that does not, and why (EC2's StateReason).
machines_down() {
  local m=$M s
  for M in $(machines); do
    [[ -n $(st "$M/instance_id") ]] || continue
    s=$(EC2_QUIET=1 instance_state "$(st "$M/instance_id")") || s="unknown"
    read -r s _ <<< "$s"
    [[ $s == running ]] || echo "${M##*/} ($(st "$M/instance_id")) is $s: $(why_not_running)"
  done
  M=$m
}

step_status() {
  local lines down
  [[ -n $(st "$M/instance_id") ]] || die "no machine: make cloud-launch first"
  lines=$(progress_lines)
  down=$(machines_down)
  if [[ -z $lines ]]; then
    if (($(count) > 1)); then say "no progress line yet in $CLOUD_DIR/run/progress.log (make cloud-start)"
    else
      say "no progress line on the serial console yet (make cloud-start; the console may lag a few minutes; status" \
        "never logs in, so a measuring machine is not disturbed)"
    fi
  else
    say "$(grep -c '^LAB-PROGRESS [^ ]* run ' <<< "$lines" || true) runs reported (from the $(progress_from)); the last line:"
    echo "  $(tail -1 <<< "$lines")"
    case $(tail -1 <<< "$lines") in
      *" done exit 0" | *" done exit 3") say "measured: make cloud-fetch next" ;;
      *" done exit "*) say "the measurement failed there: make cloud-fetch brings home what is there; make cloud-start resumes" ;;
    esac
  fi
  [[ -z $down ]] || while IFS= read -r l; do say "$l"; done <<< "$down"
}

step_demo() {
  if (($(count) > 1)); then
    [[ $(split_state) != running ]] || die "the schedule runs (from here, on $(count) machines): the demo would" \
      "disturb its runs; make cloud-demo once make cloud-status says done"
  fi
  need_ssh
  [[ $(far_run_state) != running ]] || die "the schedule runs there: the demo would disturb its runs;" \
    "make cloud-demo once make cloud-status says done"
  local t=()
  [[ -t 0 ]] && t=(-t)
  far "${t[@]}" "cd $REMOTE_DIR && make demo"
}

# Every run folder against its run.json (each file's size and sha256, no
# other file), every planned run there, and the manifest through `check`.
check_incoming() {
  local inc=$1 d run want got bad=0 n=0
  [[ -f $inc/provenance/manifest-measure.tsv ]] ||
    die "the study there is not complete (no provenance/manifest-measure.tsv): make cloud-start measures the rest"
  for d in "$inc"/results/raw/*/; do
    d=${d%/}
    run=${d##*/}
    n=$((n + 1))
    want=$({ jq -r '.files | to_entries[] | "\(.key)\t\(.value.size)\t\(.value.sha256)"' "$d/run.json" &&
      printf 'run.json\t-\t-\n'; } | sort) || { echo "  $run: run.json unreadable" >&2; bad=1; continue; }
    got=$(cd "$d" && for f in *; do
      if [[ $f == run.json ]]; then printf 'run.json\t-\t-\n'; else
        printf '%s\t%s\t%s\n' "$f" "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -c1-64)"; fi
    done | sort)
    [[ $want == "$got" ]] || { echo "  $run: its files differ from its run.json" >&2; bad=1; }
  done
  local planned missing
  planned=$(tail -n +3 "$inc/results/schedule.tsv" | awk -F'\t' '{ print $4 "-r" $2 }')
  missing=$(while read -r run; do
    [[ -d $inc/results/raw/$run ]] || [[ -f $inc/provenance/runs/$run.json ]] || echo "$run"
  done <<< "$planned")
  [[ -z $missing ]] || { echo "  planned, neither measured nor recorded: $missing" >&2; bad=1; }
  mkdir -p "$inc/.check"
  ln -sf ../provenance/manifest-measure.tsv "$inc/.check/manifest-measure.tsv"
  build/bin/check --prov "$inc/.check" --root "$inc" > "$CLOUD_DIR/check.log" 2>&1 || {
    sed 's/^/  /' "$CLOUD_DIR/check.log" >&2
    bad=1
  }
  rm -rf "$inc/.check"
  ((bad == 0)) || die "what came home does not match its records (above)${2:-; nothing was moved into $OUT}"
  say "$n runs home, each file matching its run.json, every planned run there, the manifest re-hashed"
}

# Into OUT: refused when OUT holds a study measured elsewhere; this cloud
# study (an earlier fetch) is replaced whole.
move_into_out() {
  local inc=$1
  mkdir -p "$OUT/results" "$OUT/provenance"
  if [[ ! -f $OUT/provenance/cloud.json ]] &&
    [[ -n $(ls -A "$OUT/results/raw" 2> /dev/null) || -n $(ls -A "$OUT/provenance/runs" 2> /dev/null) ]]; then
    die "OUT=$OUT holds a study measured elsewhere: fetch into another OUT (e.g. OUT=build/cloud-study)"
  fi
  find "$OUT/results" "$OUT/provenance" -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
  mv "$inc"/results/* "$OUT/results/"
  mv "$inc"/provenance/* "$OUT/provenance/"
}

# provenance/cloud.json: the machine and how it compares, without any id or address.
write_cloud_json() {
  local fp=$M/fingerprints.tsv pk
  pk=$(join -t $'\t' -a 1 -a 2 -e missing -o 0,1.2,2.2 <(sort "$M/packages-here.tsv") <(sort "$M/packages-there.tsv") |
    awk -F'\t' '$2 != $3' | jq -R -s 'split("\n") | map(select(length > 0) | split("\t") |
      {package: .[0], here: .[1], there: .[2]})')
  jq -n --arg type "$INSTANCE_TYPE" --arg region "$REGION" --arg arch "$(st "$CLOUD_DIR/arch")" \
    --arg image "$(st "$CLOUD_DIR/ami_name")" --arg launch "$(st "$M/launch_utc")" --arg fetched "$(utc)" \
    --arg profile "$(st "$M/started" | cut -d' ' -f2)" --arg rc "$1" --arg price "${PRICE_PER_HOUR:-}" \
    --arg commit "$(st "$M/source_commit")" --arg dirty "$(st "$M/source_dirty")" \
    --arg here "$(st "$M/machine-here")" --arg there "$(st "$M/machine-there")" \
    --argjson packages "$pk" --rawfile fp "$fp" '{
      format: "lab-cloud 1", instance_type: $type, region: $region, architecture: $arch, image_name: $image,
      launch_utc: $launch, fetched_utc: $fetched, price_per_hour_usd: (if $price == "" then null else ($price | tonumber) end),
      profile: $profile, measure_exit: ($rc | tonumber),
      source: {commit: (if $commit == "" then null else $commit end), uncommitted_changes: ($dirty == "true")},
      machine: {here: $here, there: $there},
      prepared_files: ($fp | split("\n") | map(select(length > 0) | split("\t")) |
        {compared: length, differ: map(select(.[1] != .[2]) | {path: .[0], here: .[1], there: .[2]})}),
      packages_differ: $packages}' > "$OUT/provenance/cloud.json.tmp"
  mv "$OUT/provenance/cloud.json.tmp" "$OUT/provenance/cloud.json"
}

# `make STAGE` here on OUT, the settings passed on.
stage() {
  local mk=(make --no-print-directory OUT="$OUT")
  [[ -n ${QUIET:-} ]] && mk+=(QUIET="$QUIET")
  [[ -n ${PGURL:-} ]] && mk+=(PGURL="$PGURL")
  "${mk[@]}" "$@" || die "make $1 failed on OUT=$OUT; the results are home and checked (delete may go on):" \
    "fix it, then make $1 and the stages after it with OUT=$OUT"
}

# With several machines: from the first launch, at the fleet's price (n x PRICE_PER_HOUR).
cost_stage() {
  local end=${1:-$(utc)} n price=${PRICE_PER_HOUR:-}
  n=$(count)
  [[ -z $price ]] || price=$(awk -v p="$price" -v n="$n" 'BEGIN { printf "%.6g", p * n }')
  stage cost START="$(st "$CLOUD_DIR/m1/launch_utc")" END="$end" PRICE_PER_HOUR="$price"
}

step_fetch() {
  study_out
  if (($(count) > 1)); then fetch_split; return; fi
  need_ssh
  local s rc
  s=$(far_run_state)
  case $s in
    running) die "still measuring there: make cloud-status; fetch once it says done" ;;
    none) die "nothing measured there yet: make cloud-start" ;;
  esac
  rc=${s#done }
  [[ $rc == 0 || $rc == 3 ]] || say "the measurement there ended with exit $rc; fetching what is there"
  local inc=$CLOUD_DIR/incoming.tmp
  rm -rf "$inc"
  mkdir -p "$inc"
  far "cd $REMOTE_DIR && tar -cf - results provenance" | tar -xf - -C "$inc" || die "copying the results home failed"
  far "cat $REMOTE_DIR/build/cloud-run/measure.log" > "$M/measure.log" 2> /dev/null || true
  check_incoming "$inc"
  move_into_out "$inc"
  rm -rf "$inc"
  write_cloud_json "$rc"
  st_put "$M/fetched" "$(utc)"
  st_put "$CLOUD_DIR/out" "$OUT"
  say "the study is in $OUT (provenance/cloud.json: the machine); make cloud-delete may go on now"
  stage collect
  stage ap
  cost_stage
  stage factcheck
  stage report
  say "done: $OUT/results/report.html; next: make cloud-delete, then make cloud-cost"
}

# Each machine from its launch to its deletion (now, for one still alive):
# its hours at PRICE_PER_HOUR, its public IPv4 address at IPV4_PER_HOUR, its
# gp3 disk at GP3_PER_GB_MONTH prorated (a month of 730 hours), each part
# printed and written to CLOUD_DIR/cost.tsv; then the machines' hours into
# OUT/results/cost.json when the study is home.
# The one rule of a machine's cost, from LAUNCH_UTC to END_UTC with a disk of
# GB: "hours instance_usd ipv4_usd disk_usd total_usd" (a month of 730 hours).
machine_cost() {
  awk -v a="$(date -u -d "$1" +%s)" -v b="$(date -u -d "$2" +%s)" -v p="${PRICE_PER_HOUR:-0}" -v ip="$IPV4_PER_HOUR" \
    -v g="$3" -v gm="$GP3_PER_GB_MONTH" 'BEGIN {
      h = (b - a) / 3600; m = h * p; i = h * ip; d = g * gm * h / 730
      printf "%.9f %.9f %.9f %.9f %.9f", h, m, i, d, m + i + d }'
}
r4() { awk 'BEGIN { for (i = 1; i < ARGC; i++) printf "%s%.4f", (i > 1 ? " " : ""), ARGV[i]; print "" }' "$@"; }
step_cost() {
  OUT=${OUT_GIVEN:-$(st "$CLOUD_DIR/out")}
  local launch end h e gb line tot="0 0 0 0 0" m_usd i_usd d_usd t_usd
  launch=$(st "$M/launch_utc")
  [[ -n $launch ]] || die "no launch recorded in $M"
  [[ -n ${PRICE_PER_HOUR:-} ]] || say "PRICE_PER_HOUR not set: the machine's own part is left out (set it)"
  printf 'machine\tfrom_utc\tto_utc\thours\tinstance_usd\tipv4_usd\tdisk_gb\tdisk_usd\ttotal_usd\n' > "$CLOUD_DIR/cost.tsv.tmp"
  for M in $(machines); do
    [[ -n $(st "$M/launch_utc") ]] || continue
    e=$(st "$M/terminated_utc")
    [[ -n $e ]] || { e=$(utc); say "${M##*/} still runs: the cost so far"; }
    [[ -z ${end:-} || $e > $end ]] && end=$e
    gb=$(st "$M/disk_gb")
    gb=${gb:-$DISK_GB}
    # hours, instance, IPv4, disk, total
    line=$(machine_cost "$(st "$M/launch_utc")" "$e" "$gb")
    # shellcheck disable=SC2086 # the five numbers, a word each
    read -r h m_usd i_usd d_usd t_usd <<< "$(r4 $line)"
    say "${M##*/}: $h h ($(st "$M/launch_utc") to $e): machine $m_usd USD (${PRICE_PER_HOUR:-?} USD/h)," \
      "public IPv4 $i_usd USD ($IPV4_PER_HOUR USD/h), disk $d_usd USD ($gb GB gp3 at $GP3_PER_GB_MONTH USD/GB-month):" \
      "$t_usd USD"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${M##*/}" "$(st "$M/launch_utc")" "$e" "$h" "$m_usd" "$i_usd" \
      "$gb" "$d_usd" "$t_usd" >> "$CLOUD_DIR/cost.tsv.tmp"
    tot=$(awk -v t="$tot" -v l="$line" 'BEGIN { split(t, x, " "); split(l, y, " ")
      printf "%.9f %.9f %.9f %.9f %.9f", x[1] + y[1], x[2] + y[2], x[3] + y[3], x[4] + y[4], x[5] + y[5] }')
  done
  mv "$CLOUD_DIR/cost.tsv.tmp" "$CLOUD_DIR/cost.tsv"
  M=$CLOUD_DIR/m1
  # shellcheck disable=SC2086 # the five numbers, a word each
  read -r h m_usd i_usd d_usd t_usd <<< "$(r4 $tot)"
  say "all $(count) machine(s): $h h: machine $m_usd + public IPv4 $i_usd + disk $d_usd = $t_usd USD" \
    "($launch to $end; the parts per machine in $CLOUD_DIR/cost.tsv)"
  if [[ -n $OUT && -f $OUT/provenance/cloud.json ]]; then
    cost_stage "$end"
    stage factcheck
    stage report
    say "$OUT/results/cost.json written (the machines' hours at PRICE_PER_HOUR); factcheck and report again"
  fi
}

# ---- several machines: the split schedule runs from here ----

# "running", "done RC" or "none": cloudrun.sh here (start_split's).
split_state() {
  local run=$CLOUD_DIR/run
  if [[ -f $run/pid ]] && kill -0 "$(cat "$run/pid")" 2> /dev/null; then echo running
  elif [[ -f $run/rc ]]; then echo "done $(cat "$run/rc")"; else echo none; fi
}

# Every machine set up, with the prepared files of this one (the study has
# one reference), then `make measure HOST=lab-$TAG-m1,... --far-lab
# REMOTE_DIR` detached here (setsid, nohup): GNU parallel gives each machine
# whole rounds, which it measures with its own build.
start_split() {
  [[ $(split_state) != running ]] || { say "the measurement already runs from here (make cloud-status)"; return; }
  study_out
  out_is_free
  local cfg=$CLOUD_DIR/ssh_config hosts="" differ
  : > "$cfg.tmp"
  for M in $(machines); do
    need_ssh
    [[ -n $(st "$M/setup_done") ]] || die "${M##*/}: make cloud-setup first"
    far_nice_ok > /dev/null || die "${M##*/}: the tester's priority (nice -10) cannot be set there: $SSH_USER is" \
      "not root, its limit (ulimit -e) is below 30 and build/bin/run lacks cap_sys_nice; make cloud-setup sets it"
    differ=$(awk -F'\t' '$2 != $3 { print $1 }' "$M/fingerprints.tsv" | tr '\n' ' ')
    [[ -z $differ ]] || die "${M##*/} prepared other files than this machine ($differ): its runs would be checked" \
      "against the wrong references; measure with COUNT=1, or on machines of this one's architecture"
    printf 'Host lab-%s-%s\n  HostName %s\n  Port %s\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n' \
      "$TAG" "${M##*/}" "$(st "$M/address")" "$(port)" "$SSH_USER" "$(realpath "$CLOUD_DIR/key")" >> "$cfg.tmp"
    printf '  UserKnownHostsFile %s\n  HostKeyAlias lab-%s-%s\n  StrictHostKeyChecking yes\n' \
      "$(realpath "$M/known_hosts")" "$TAG" "${M##*/}" >> "$cfg.tmp"
    printf '  ConnectTimeout 10\n  LogLevel ERROR\n' >> "$cfg.tmp"
    hosts+=${hosts:+,}lab-$TAG-${M##*/}
  done
  mv "$cfg.tmp" "$cfg"
  for M in $(machines); do need_smoke; done
  M=$CLOUD_DIR/m1
  if [[ ! -f $OUT/provenance/prereg.json ]]; then # the registration the far measures check against
    make --no-print-directory prepare OUT="$OUT" > "$CLOUD_DIR/prepare-here.log" 2>&1 ||
      die "make prepare here failed (see $CLOUD_DIR/prepare-here.log)"
  fi
  mkdir -p "$CLOUD_DIR/run"
  rm -f "$CLOUD_DIR/run/rc"
  local env=(PROFILE="$PROFILE" GATE="$GATE" SPLIT_HOSTS="$hosts" SPLIT_OUT="$OUT" CLOUD_RUN_DIR="$CLOUD_DIR/run"
    LAB_CONSOLE=none LAB_SSH_OPTS="-F $(realpath "$cfg")"
    MEASURE_FLAGS="${MEASURE_FLAGS:+$MEASURE_FLAGS }--far-lab $REMOTE_DIR")
  [[ -n ${QUIET:-} ]] && env+=(QUIET="$QUIET")
  env "${env[@]}" setsid nohup bash pipeline/cloud/cloudrun.sh > "$CLOUD_DIR/run.out" 2>&1 < /dev/null &
  sleep 1
  local s
  s=$(split_state)
  [[ $s == running || $s == done* ]] || die "the measurement did not start (see $CLOUD_DIR/run.out)"
  for M in $(machines); do st_put "$M/started" "$(utc) $PROFILE"; done
  M=$CLOUD_DIR/m1
  say "the $PROFILE profile runs from here on $(count) machines into $OUT, detached (closing this terminal does" \
    "not stop it; this machine must stay up): make cloud-status"
}

# The runs came home as they were measured: checked in OUT, then the stages here.
fetch_split() {
  local s rc
  s=$(split_state)
  case $s in
    running) die "still measuring: make cloud-status; fetch once it says done" ;;
    none) die "nothing measured yet: make cloud-start" ;;
  esac
  rc=${s#done }
  [[ $rc == 0 || $rc == 3 ]] || say "the measurement ended with exit $rc; checking what is there"
  cp "$CLOUD_DIR/run/measure.log" "$CLOUD_DIR/m1/measure.log" 2> /dev/null || true
  check_incoming "$OUT" "; $OUT/provenance/parallel.tsv says which machine measured which round"
  M=$CLOUD_DIR/m1
  write_cloud_json "$rc"
  for M in $(machines); do st_put "$M/fetched" "$(utc)"; done
  M=$CLOUD_DIR/m1
  st_put "$CLOUD_DIR/out" "$OUT"
  say "the study is in $OUT (provenance/parallel.tsv: which machine measured which round); make cloud-delete may go on"
  stage collect
  stage ap
  cost_stage
  stage factcheck
  stage report
  say "done: $OUT/results/report.html; next: make cloud-delete, then make cloud-cost"
}

# ---- smoke: the tiny profile there before the schedule ----

need_smoke() {
  [[ $SMOKE == 0 || -n $(st "$M/smoke_done") ]] ||
    die "${M##*/}: no smoke run since its setup: make cloud-smoke first (SMOKE=0 starts without one)"
}

step_smoke() {
  for M in $(machines); do
    (($(count) == 1)) || say "${M##*/}:"
    smoke_one
  done
  M=$CLOUD_DIR/m1
}

# make measure PROFILE=tiny OUT=build/smoke there, at the settings of the
# schedule to come (GATE, and for the tests QUIET and MEASURE_FLAGS); then,
# there: every run complete and the manifest re-hashed (build/bin/check),
# each run.json's tester_nice (read back) equal to the priority asked for;
# build/smoke removed there whatever happened.
smoke_one() {
  need_ssh
  [[ -n $(st "$M/setup_done") ]] || die "${M##*/}: make cloud-setup first"
  [[ $(far_run_state) != running ]] || die "the measurement runs there: no smoke run beside it"
  local args t0=$SECONDS facts n wrong
  args=$(printf 'GATE=%q' "$GATE")
  [[ -n ${QUIET:-} ]] && args+=$(printf ' QUIET=%q' "$QUIET")
  [[ -n ${MEASURE_FLAGS:-} ]] && args+=$(printf ' MEASURE_FLAGS=%q' "$MEASURE_FLAGS")
  rm -f "$M/smoke_done"
  say "${M##*/}: the tiny profile there (make measure PROFILE=tiny OUT=build/smoke; its log: $M/smoke.log)"
  local rc=0
  far "cd $REMOTE_DIR && rm -rf build/smoke && make --no-print-directory measure PROFILE=tiny OUT=build/smoke $args" \
    > "$M/smoke.log" 2>&1 || rc=$?
  # measure's exit 3 (lab/base/exits.h): every run measured, some disturbed in all 3 attempts: a noisy machine, said below
  if ((rc != 0)) && ! grep -q 'disturbed in all 3 attempts' "$M/smoke.log"; then
    tail -20 "$M/smoke.log" | sed 's/^/  | /' >&2
    far "rm -rf $REMOTE_DIR/build/smoke" || true
    die "the smoke run failed there (the whole log: $M/smoke.log); its files there are removed"
  fi
  local noisy
  noisy=$(grep -c 'disturbed in all 3 attempts' "$M/smoke.log" || true)
  ((noisy == 0)) || say "${M##*/}: $noisy smoke runs stayed disturbed in all 3 attempts (steal, or other load there:" \
    "$M/smoke.log says which rule); the schedule measures such runs again, but a machine this noisy makes a slow study"
  # shellcheck disable=SC2016 # expanded there
  facts=$(far "cd $REMOTE_DIR/build/smoke && mkdir -p .check && ln -sf ../provenance/manifest-measure.tsv .check/ &&
    ../bin/check --prov .check --root . > .check/log 2>&1 || { cat .check/log; exit 1; }
    for f in results/raw/*/run.json; do jq -r '\"\(.arm)-r\(.round) \(.tester_nice) \(.tester_nice_asked)\"' \"\$f\"; done") || {
    far "rm -rf $REMOTE_DIR/build/smoke" || true
    die "the smoke run's files there do not match their manifest: ${facts:-no answer}; its files there are removed"
  }
  far "rm -rf $REMOTE_DIR/build/smoke" || die "could not remove build/smoke there"
  n=$(grep -c . <<< "$facts" || true)
  wrong=$(awk '$2 != $3 || $3 != -10 { print $1 " at nice " $2 " (asked " $3 ")" }' <<< "$facts" | head -3)
  [[ -n $wrong ]] && die "the smoke run's tester did not run at the priority asked: $wrong"
  ((n > 0)) || die "the smoke run left no run there"
  st_put "$M/smoke_done" "$(utc) $n runs"
  say "smoke there: $n runs, each complete and its manifest re-hashed, the tester at nice -10 in every one" \
    "($(st "$M/nice_how")); its files removed there (in $((SECONDS - t0)) s)"
}

# ---- study: the whole path in one command ----

# Seconds of "h:mm:ss" or "m:ss".
secs() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' <<< "$1"; }

# USD spent so far: every machine from its launch to its deletion (or now),
# its hours at PRICE_PER_HOUR and IPV4_PER_HOUR, its disk prorated (as step_cost).
spent_usd() {
  local m=$M tot=0 e gb
  for M in $(machines); do
    [[ -n $(st "$M/launch_utc") ]] || continue
    e=$(st "$M/terminated_utc")
    gb=$(st "$M/disk_gb")
    tot=$(machine_cost "$(st "$M/launch_utc")" "${e:-$(utc)}" "${gb:-$DISK_GB}" |
      awk -v t="$tot" '{ printf "%.9f", t + $5 }')
  done
  M=$m
  awk -v t="$tot" 'BEGIN { printf "%.4f", t }'
}

# One step in a process of its own (its messages its own); stops the study when it fails.
study_step() {
  local rc=0
  bash "$0" "$@" || rc=$?
  ((rc == 0)) || die "stopped at make cloud-$1 (exit $rc, above); fix what it says, then make cloud-study again goes" \
    "on from there"
}

follow_stopped() {
  echo
  say "stopped following; the measurement goes on there (make cloud-study again follows it and fetches it when done;" \
    "make cloud-status shows it)"
  exit 130
}

# Until the schedule is done: one line every STUDY_EVERY_S (the last run
# reported, the end measure estimates, the money spent so far).  Ctrl-C
# stops the following only; the measurement goes on there.
follow() {
  trap 'follow_stopped' INT TERM
  local lines last down k left end n
  n=$(count)
  while :; do
    lines=$(progress_lines)
    last=$(tail -1 <<< "$lines")
    case $last in
      *" done exit 0" | *" done exit 3") say "$(date -u +%H:%M:%SZ): the schedule is done there (${last##* done })"; break ;;
      *" done exit "*) die "the measurement ended with ${last##* done } there (its log: make cloud-fetch brings it" \
        "home); make cloud-start resumes it, then make cloud-study again" ;;
    esac
    down=$(machines_down)
    [[ -z $down ]] || die "$down; a terminated machine's runs are gone with it (make cloud-delete FORCE=1 removes" \
      "the rest, then make cloud-study starts anew); a stopped one keeps them: start it again (aws ec2" \
      "start-instances), then make cloud-study follows it on"
    if [[ $last =~ run\ ([0-9]+)\ of\ ([0-9]+)\ +([^ ]+)\ round\ ([0-9]+).*left\ ~([0-9:]+) ]]; then
      k="run ${BASH_REMATCH[1]} of ${BASH_REMATCH[2]} (${BASH_REMATCH[3]} round ${BASH_REMATCH[4]})"
      left=$(secs "${BASH_REMATCH[5]}")
      end=$(date -u -d "@$(($(date -u +%s) + left))" +%H:%MZ)
      say "$(date -u +%H:%M:%SZ): $k; the end about $end (measure's estimate: left ~${BASH_REMATCH[5]});" \
        "spent so far $(spent_usd) USD ($n machine(s))"
    else
      say "$(date -u +%H:%M:%SZ): no run reported yet (${last:+the last line: }${last:-the console may lag a few minutes});" \
        "spent so far $(spent_usd) USD ($n machine(s))"
    fi
    sleep "$STUDY_EVERY_S"
  done
  trap - INT TERM
}

step_study() {
  say "the whole path: check, access, launch, wait, setup, smoke, start, follow, fetch, delete, cost; a step" \
    "found done is skipped"
  if [[ -z $(st "$M/fetched") ]]; then
    # (a machine deleted before its study came home: the next launch starts anew)
    if [[ -z $(st "$M/started") || -z $(st "$M/instance_id") ]]; then
      [[ -n $(st "$M/instance_id") ]] || study_step check
      [[ -s $CLOUD_DIR/key && -n $(st "$CLOUD_DIR/group_id") ]] || study_step access
      study_step launch
      study_step wait
      local m need_setup=0 need_smoke=0
      for m in $(machines); do
        [[ -n $(st "$m/setup_done") ]] || need_setup=1
        [[ -n $(st "$m/smoke_done") ]] || need_smoke=1
      done
      ((need_setup == 0)) || study_step setup
      ((need_smoke == 0 || SMOKE == 0)) || study_step smoke
      study_step start
    else
      say "the schedule started $(st "$M/started" | cut -d' ' -f1) (make cloud-start); following it"
    fi
    follow
    study_step fetch
  else
    say "the study is home already ($(st "$CLOUD_DIR/out"), fetched $(st "$M/fetched"))"
  fi
  local alive=0 m
  for m in $(machines); do [[ -z $(st "$m/instance_id") ]] || alive=1; done
  ((alive == 0)) || study_step delete
  study_step cost
  say "done: the study is in $(st "$CLOUD_DIR/out") (report: $(st "$CLOUD_DIR/out")/results/report.html);" \
    "nothing of it is left in $REGION; what it cost: above and in $CLOUD_DIR/cost.tsv"
}

# CLOUD_DIR removed (make cloud-clean; make clean keeps it): refused while
# it lists an instance not seen terminated, a key pair or a security group
# (their ids would be lost with it, and with them the way to delete them).
step_clean() {
  [[ -d $CLOUD_DIR ]] || { say "$CLOUD_DIR: not there, nothing to remove"; return; }
  local left="" studies
  for M in $(machines); do
    [[ -z $(st "$M/instance_id") ]] || left+="  ${M##*/}: instance $(st "$M/instance_id") ($M/instance_id)"$'\n'
  done
  [[ -z $(st "$CLOUD_DIR/key_name") ]] || left+="  key pair $(st "$CLOUD_DIR/key_name") ($CLOUD_DIR/key_name)"$'\n'
  [[ -z $(st "$CLOUD_DIR/group_id") ]] || left+="  security group $(st "$CLOUD_DIR/group_id") ($CLOUD_DIR/group_id)"$'\n'
  if [[ -n $left ]]; then
    local region
    region=$(st "$CLOUD_DIR/region")
    printf 'cloud clean: refused: %s lists what may still exist (and bill)%s:\n%s' "$CLOUD_DIR" \
      "${region:+ in $region}" "$left" >&2
    echo "cloud clean: make cloud-delete first (make cloud-check lists what carries the tag); nothing was removed" >&2
    exit 1
  fi
  # the studies fetched into it stay: they cost money to measure
  studies=$(find "$CLOUD_DIR" -mindepth 1 -maxdepth 1 -name 'study-*' -type d | sort | tr '\n' ' ')
  if [[ -n $studies ]]; then
    find "$CLOUD_DIR" -mindepth 1 -maxdepth 1 ! -name 'study-*' -exec rm -rf {} +
    say "removed the state in $CLOUD_DIR (nothing it listed was alive); kept the studies ${studies% } (remove them yourself)"
  else
    rm -rf "$CLOUD_DIR"
    say "removed $CLOUD_DIR (nothing it listed was alive)"
  fi
}

case $STEP in
  check | access | launch | wait | setup | smoke | start | status | demo | fetch | delete | cost | study) ;;
  clean) step_clean; exit 0 ;;
  *) echo "usage: pipeline/cloud/cloud.sh check|access|launch|wait|setup|smoke|start|status|demo|fetch|delete|cost|study|clean" >&2
    exit 2 ;;
esac
command -v aws > /dev/null || die "the aws command is missing: make deps (Debian's awscli)"
check_settings
mkdir -p "$CLOUD_DIR"
chmod 700 "$CLOUD_DIR"
# An unexpected failure: one line (unless die or bad already said why), exit 1.
on_error() {
  local rc=$1
  ((BASH_SUBSHELL == 0)) || return 0
  [[ -f $CLOUD_DIR/.said.$$ ]] && exit "$rc"
  echo "cloud $STEP: failed (line $2); make cloud-check lists what carries the tag, make cloud-delete FORCE=1" \
    "removes what this checkout made" >&2
  exit 1
}
trap 'on_error $? $LINENO' ERR
trap 'rm -f "$AWS_ERR" "$AWS_CODE" "$CLOUD_DIR/.said.$$"' EXIT
"step_$STEP"
