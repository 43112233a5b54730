# sweep_farm.sh — what examples/sweep_parallel.sh and examples/sweep_slurm.sh
# share, sourced by both (not run on its own): the seqrep binary and the scan
# of the sweep options they pass on.
#
# farm_seqrep: sets seqrep to $SEQREP, else build/seqrep, else seqrep on the
#   PATH (dies naming SEQREP when none is there).
# farm_scan OUT SWEEP-OPTIONS...: sets runs and summary to where sweep puts
#   the run files and collect the summary (OUT without .csv plus .runs and
#   .md, or --runs-dir / --summary among the options), threads_given to 1 when
#   the options give --threads; dies on --out, --jobs, --plan and --stop-after,
#   which the scripts set. Both need die() and base (OUT without .csv).

farm_seqrep() {
    seqrep=${SEQREP:-build/seqrep}
    [ -x "$seqrep" ] || seqrep=$(command -v seqrep) || die "no seqrep binary: set SEQREP or run make"
}

farm_scan() {
    runs=${1%.csv}.runs
    summary=${1%.csv}.md
    threads_given=0
    shift
    prev=
    for a in "$@"; do
        case $prev in --runs-dir) runs=$a ;; --summary) summary=$a ;; esac
        case $a in
            --runs-dir=*) runs=${a#--runs-dir=} ;;
            --summary=*) summary=${a#--summary=} ;;
            --threads | --threads=*) threads_given=1 ;;
            --out | --out=* | --jobs | --jobs=* | --plan | --stop-after | --stop-after=*)
                die "${a%%=*} is set by this script; give the other options of seqrep sweep" ;;
        esac
        prev=$a
    done
}
