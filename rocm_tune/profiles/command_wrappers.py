"""Programs that run another command (containers, schedulers, remote shells, environment managers, process
settings): how each one's own options are spelled, so that the command it runs is read and its options are not.

Each entry: ``sub`` (the subcommand word(s) that make it run a command: ``docker run``; empty when the program
always does), ``value`` (options followed by a value, ``-v a:b`` / ``--name x``), ``flags`` (options without one),
``unknown_takes_value`` (how an option missing from both is read), ``positionals`` (words between the options and
the command: the image, the container, the host, the duration, the CPU mask), ``env`` (options whose ``KEY=VAL``
value is set in the command's environment), ``env_pairs`` (options followed by ``KEY VAL``), ``env_csv`` (the env
option takes several, comma-separated), ``env_files`` (options naming a file of ``KEY=VAL`` lines),
``env_prefixes`` (exported ``PREFIX_KEY`` variables the container sees as ``KEY``), ``two_values``
(options followed by two words), ``after_dashdash`` (the command follows ``--``), ``string`` (the rest is one
command line for a shell on the other side, as ssh sends it), ``module`` (options meaning "run this module":
``uv run -m``), ``string_opts`` (an option whose value is a command line: ``sbatch --wrap``).

Sources: ``docker run --help`` / ``docker exec --help`` (Docker CLI reference), podman-run(1), apptainer-exec(1) /
apptainer-run(1) (Apptainer user guide; SingularityCE the same), enroot's ``enroot start --help`` (NVIDIA/enroot
doc/usage.md), srun(1) / salloc(1) / sbatch(1) (Slurm), mpirun(1) (Open MPI) and mpiexec.hydra (MPICH / Intel MPI),
ssh(1) (OpenSSH), ``conda run --help``, ``uv run --help``, timeout(1) / env(1) / nice(1) / stdbuf(1) / setsid(1)
(GNU coreutils, util-linux), numactl(8), taskset(1), sudo(8), ``ray job submit --help``, ``kubectl exec --help``.
"""

from __future__ import annotations

_DOCKER_VALUE = frozenset("""
-a --attach --add-host --annotation --blkio-weight --blkio-weight-device --cap-add --cap-drop --cgroup-parent
--cgroupns --cidfile --cpu-count --cpu-percent --cpu-period --cpu-quota --cpu-rt-period --cpu-rt-runtime -c
--cpu-shares --cpus --cpuset-cpus --cpuset-mems --detach-keys --device --device-cgroup-rule --device-read-bps
--device-read-iops --device-write-bps --device-write-iops --dns --dns-opt --dns-option --dns-search --domainname
--entrypoint -e --env --env-file --expose --gpus --group-add --health-cmd --health-interval --health-retries
--health-start-interval --health-start-period --health-timeout -h --hostname --ip --ip6 --ipc --isolation
--kernel-memory -l --label --label-file --link --link-local-ip --log-driver --log-opt --mac-address -m --memory
--memory-reservation --memory-swap --memory-swappiness --mount --name --network --net --network-alias --net-alias
--oom-score-adj --pid --pids-limit --platform -p --publish --pull --restart --runtime --security-opt --shm-size
--stop-signal --stop-timeout --storage-opt --sysctl --tmpfs --ulimit -u --user --userns --uts -v --volume
--volume-driver --volumes-from -w --workdir --hooks-dir --systemd --arch --os --variant --cgroups --pod
--secret --timeout --chrootdirs --passwd-entry --group-entry --requires --seccomp-policy --sdnotify --preserve-fd
""".split())
_DOCKER_FLAGS = frozenset("""
-d --detach -i --interactive -t --tty --rm --privileged -P --publish-all --init --read-only --no-healthcheck
--oom-kill-disable -q --quiet --sig-proxy --help --disable-content-trust --use-api-socket --replace --rmi
--no-hosts --read-only-tmpfs --tls-verify --http-proxy --env-host --passwd --image-volume -T --no-deps
--service-ports --use-aliases --build --remove-orphans
""".split())
_DOCKER = dict(sub=(("run",), ("exec",), ("container", "run"), ("container", "exec"), ("compose", "run"),
                    ("compose", "exec")),
               value=_DOCKER_VALUE, flags=_DOCKER_FLAGS, unknown_takes_value=True, positionals=1,
               env=("-e", "--env"), env_files=("--env-file",))

_APPTAINER_VALUE = frozenset("""
-B --bind --mount --env --env-file -H --home --pwd -W --workdir -o --overlay --app --security -S --scratch
--hostname --network --network-args --dns --add-caps --drop-caps --apply-cgroups --fusemount --no-mount --cpus
--cpu-shares --cpuset-cpus --cpuset-mems --memory --memory-reservation --memory-swap --pids-limit
--blkio-weight --blkio-weight-device --authfile --docker-host --passphrase --pem-path --config --sif-fuse
""".split())
_APPTAINER_FLAGS = frozenset("""
--nv --rocm --nvccli -e --cleanenv -c --contain -C --containall -w --writable --writable-tmpfs -f --fakeroot
-u --userns --no-home --no-init --no-privs --no-https --nohttps -p --pid -i --ipc -n --net --uts --compat
--disable-cache --keep-privs --allow-setuid --boot --no-eval --unsquash --sharens --no-umask --no-pid
--ignore-subuid --ignore-fakeroot-command --ignore-userns --no-setgroups --oom-kill-disable
""".split())
_APPTAINER = dict(sub=(("exec",), ("run",)), value=_APPTAINER_VALUE, flags=_APPTAINER_FLAGS,
                  unknown_takes_value=False, positionals=1, env=("--env",), env_files=("--env-file",), env_csv=True,
                  env_prefixes=("SINGULARITYENV_", "APPTAINERENV_"))

_SLURM_VALUE = frozenset("""
-A --account -B --extra-node-info -b --begin -C --constraint -c --cpus-per-task -D --chdir -d --dependency
-e --error -G --gpus -i --input -J --job-name -L --licenses -M --clusters -m --distribution -N --nodes -n --ntasks
-o --output -p --partition -q --qos -r --relative -S --core-spec -T --threads -t --time -W --wait -w --nodelist
-x --exclude --gres --gpus-per-node --gpus-per-task --gpus-per-socket --cpus-per-gpu --mem --mem-per-cpu
--mem-per-gpu --ntasks-per-node --ntasks-per-socket --ntasks-per-core --ntasks-per-gpu --cpu-bind --gpu-bind
--mem-bind --mpi --export --network --reservation --comment --container --container-image --container-mounts
--container-workdir --container-name --container-env --signal --time-min --tmp --gres-flags --het-group
--hint --sockets-per-node --cores-per-socket --threads-per-core --switches --prolog --epilog --task-prolog
--task-epilog --jobid --open-mode --resv-ports --slurmd-debug --tres-per-task --wckey --uid --gid --mail-type
--mail-user --nice --priority --deadline --delay-boot --distribution --bb --bbf --cpu-freq --accel-bind
--acctg-freq --mincpus --profile --segment --send-libs --thread-spec --tres-bind --kill-command --bcast
""".split())
_SLURM_FLAGS = frozenset("""
-E --preserve-env -H --hold -h --help -I --immediate -K --kill-on-bad-exit -k --no-kill -l --label -O --overcommit
-Q --quiet -s --oversubscribe -u --unbuffered -V --version -v --verbose -X --disable-status -Z --no-allocate
--overlap --exclusive --pty --exact --whole --multi-prog --contiguous --spread-job --test-only --use-min-nodes
--x11 --propagate --container-remap-root --no-container-remap-root --container-mount-home
--no-container-mount-home --container-writable --container-readonly --no-container-entrypoint --unbuffered
--external-launcher
""".split())
_SLURM = dict(sub=(), value=_SLURM_VALUE, flags=_SLURM_FLAGS, unknown_takes_value=True,
              positionals=0, env=("--export",), env_csv=True)

_MPI_VALUE = frozenset("""
-np -n -c -N -npernode --npernode -npersocket --npersocket -H -host --host -hostfile --hostfile -machinefile
--machinefile -f -hosts -ppn --map-by -map-by --bind-to -bind-to --rank-by -rank-by --prefix -prefix -wdir --wdir
-wd -x -output-filename --output-filename --output -launcher -bootstrap -iface -genvlist -envlist -am --tune
-cpu-set --cpu-set --personality --rankfile -rf --app -timeout --timeout -default-hostfile --default-hostfile
-path --path --preload-files -s --stdin -configfile -rmk -rr -profile -binding -errfile-pattern
-outfile-pattern
""".split())
_MPI_FLAGS = frozenset("""
--allow-run-as-root -allow-run-as-root --oversubscribe -oversubscribe --nooversubscribe -nooversubscribe
--report-bindings -report-bindings --tag-output -tag-output --timestamp-output -timestamp-output -v --verbose -q
--quiet --display-map -display-map --display-allocation -display-allocation -bynode -byslot --noprefix
-genvall -genvnone -l -print-rank-map -prepend-rank -ordered-output -nolocal -exitcode -print-all-exitcodes
--bind-to-core -bind-to-core --bind-to-socket -bind-to-socket -enable-x -disable-x
""".split())
_MPI = dict(sub=(), value=_MPI_VALUE, flags=_MPI_FLAGS, unknown_takes_value=False, positionals=0, env=("-x",),
            env_pairs=("-genv", "-env"), two_values=("--mca", "-mca", "--gmca", "-gmca", "--omca", "-omca"))

_SSH = dict(sub=(), value=frozenset("-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w".split()),
            flags=frozenset("-4 -6 -A -a -C -f -G -g -K -k -M -N -n -q -s -T -t -V -v -X -x -Y -y".split()),
            unknown_takes_value=False, positionals=1, string=True)

_CONDA = dict(sub=(("run",),), value=frozenset("-n --name -p --prefix --cwd -r --root-prefix -a --attach".split()),
              flags=frozenset("--no-capture-output --live-stream -v --verbose --debug-wrapper-scripts "
                              "--clean-env --detach".split()),
              unknown_takes_value=False, positionals=0)

_UV = dict(sub=(("run",),), value=frozenset("""
--with --with-editable --with-requirements --python -p --project --directory --env-file --extra --group
--only-group --no-group --package --index --default-index --index-url -i --extra-index-url --find-links -f
--index-strategy --keyring-provider --resolution --prerelease --exclude-newer --config-file --cache-dir --color
--refresh-package --reinstall-package --upgrade-package -P --no-binary-package --no-build-package
--config-setting -C --link-mode --python-preference --allow-insecure-host --no-extra
""".split()), flags=frozenset("""
--no-sync --frozen --locked --isolated --no-project --active --all-extras --no-dev --dev --only-dev -q --quiet
-v --verbose --offline --no-cache -n --no-env-file --all-packages --no-editable --exact --inexact -s --script
--gui-script --compile-bytecode --no-build-isolation --no-build --no-binary --refresh --reinstall -U --upgrade
--no-config --native-tls --preview --no-progress --all-groups --no-default-groups
""".split()), unknown_takes_value=False, positionals=0, env_files=("--env-file",), module=("-m", "--module"))

_SIMPLE = dict(sub=(), value=frozenset(), flags=frozenset(), unknown_takes_value=False, positionals=0)

WRAPPERS: dict[str, dict] = {
    "docker": _DOCKER, "podman": _DOCKER, "nvidia-docker": _DOCKER,
    "singularity": _APPTAINER, "apptainer": _APPTAINER,
    "enroot": dict(sub=(("start",),), value=frozenset("-c --conf -e --env -m --mount".split()),
                   flags=frozenset("-r --root -w --rw".split()), unknown_takes_value=False, positionals=1,
                   env=("-e", "--env")),
    "srun": _SLURM, "salloc": _SLURM,
    "sbatch": dict(_SLURM, string_opts=("--wrap",)),
    "mpirun": _MPI, "mpiexec": _MPI, "mpiexec.hydra": _MPI, "orterun": _MPI,
    "ssh": _SSH,
    "conda": _CONDA, "mamba": _CONDA, "micromamba": _CONDA,
    "uv": _UV,
    "poetry": dict(_SIMPLE, sub=(("run",),)), "pipenv": dict(_SIMPLE, sub=(("run",),)),
    "timeout": dict(_SIMPLE, value=frozenset("-s --signal -k --kill-after".split()),
                    flags=frozenset("--foreground --preserve-status -v --verbose".split()), positionals=1),
    "numactl": dict(_SIMPLE, value=frozenset("""-N --cpunodebind -m --membind -i --interleave -C --physcpubind -p
                    --preferred -P --preferred-many -w --weighted-interleave""".split()),
                    flags=frozenset("-l --localalloc -a --all -b --balancing".split())),
    "taskset": dict(_SIMPLE, flags=frozenset("-a --all-tasks -c --cpu-list".split()), positionals=1),
    "nice": dict(_SIMPLE, value=frozenset("-n --adjustment".split())),
    "ionice": dict(_SIMPLE, value=frozenset("-c --class -n --classdata".split()), flags=frozenset({"-t"})),
    "stdbuf": dict(_SIMPLE, value=frozenset("-i -o -e --input --output --error".split())),
    "setsid": dict(_SIMPLE, flags=frozenset("-c --ctty -f --fork -w --wait".split())),
    "sudo": dict(_SIMPLE, value=frozenset("-u --user -g --group -h --host -p --prompt -C --close-from -D "
                                          "--chdir -r --role -t --type -U --other-user -T --command-timeout"
                                          .split()),
                 flags=frozenset("-E --preserve-env -H --set-home -n --non-interactive -S --stdin -b --background "
                                 "-k --reset-timestamp -P --preserve-groups".split())),
    "env": dict(_SIMPLE, value=frozenset("-u --unset -C --chdir".split()),
                flags=frozenset("-i --ignore-environment -0 --null -v --debug".split())),
    "nohup": _SIMPLE, "command": _SIMPLE,
    "exec": dict(_SIMPLE, value=frozenset({"-a"}), flags=frozenset({"-c", "-l"})),
    "time": dict(_SIMPLE, value=frozenset("-f --format -o --output".split()),
                 flags=frozenset("-p --portability -a --append -v --verbose -q --quiet".split())),
    "ray": dict(_SIMPLE, sub=(("job", "submit"),), after_dashdash=True),
    "kubectl": dict(_SIMPLE, sub=(("exec",),), after_dashdash=True),
}

# shells that run a command line given with -c (bash(1) "OPTIONS": -c, and the options before it, -l -e -x ...)
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
SHELL_VALUE_OPTS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
