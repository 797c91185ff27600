"""Benchmark (a script, not a timed test): the `sheetstream` Spark data
source against what teams use without spark-excel, on Spark local[2].

    python python/benches/spark_bench.py [--files 32] [--rows 125000] [--skip openpyxl]
    python python/benches/spark_bench.py --marginal 16 [--openpyxl-files 2] [--repeat 3]
    python python/benches/spark_bench.py --big

Readers, each run in a process of its own with a fresh SparkSession
(local[2]), each writing every row of every workbook to Spark's `noop` sink
(so every column is read and converted, nothing is written):

- ``sheetstream``: ``spark.read.format("sheetstream").load(dir)``;
- ``pandas-calamine`` / ``pandas-openpyxl``: a DataFrame of the paths,
  32 partitions, ``mapInPandas`` calling ``pandas.read_excel(path,
  engine=...)`` per file (every file by default; ``--openpyxl-files N``
  reads N of them for a quick look, and scales the time to all files,
  marked so: an overestimate, since Spark's fixed cost is scaled too, and
  left out of the target lines);
- ``sheetstream-no-spark``: the data source's own planning and ``read()``
  in two processes, without Spark (the rest of the data source's time is
  Spark's engine: batches into the JVM, rows, the sink);
- ``sheetstream-parquet``: the CLI writing the same files into one
  Parquet file (no Spark; its threads, one per core), to show what Spark's
  engine adds;
- ``spark-empty-source``: a Python data source with the same schema and
  one partition that yields nothing: what Spark costs any Python data
  source before a row is read (the JVM plans the read by starting Python
  processes for the source's lookup, its schema and its partitions, then
  the tasks' Python workers);
- ``spark-arrow-source``: a Python data source that yields the very Arrow
  batches the sheetstream source yields, from Arrow IPC files written
  before the clock starts (memory-mapped, partitioned as sheetstream
  partitions the workbooks): Spark's cost for these rows, with no
  workbook read at all. The sheetstream source can come no closer to
  Spark's floor than this.

``--marginal N`` measures what decides a data-lake job instead: each of
the sheetstream source, ``sheetstream parquet``, and ``mapInPandas`` with
pandas' calamine and openpyxl engines reads the first N and then 2N files
of the same set (``--files`` is set to 2N), in the same run, and the table
gives ``t(2N) - t(N)`` per reader (the cost of N more files, Spark's fixed
cost cancelled) beside the totals (with ``--repeat K``, each reader runs
N and 2N files alternately K times and the fastest run of each counts,
all of them printed); ``spark-empty-source`` gives Spark's
fixed cost, and the source reading one workbook the Python worker's peak
RSS on it. The targets are checked on the marginal costs. The table also
gives where the marginal goes in CPU: the Python processes' CPU seconds
(the workbooks read in Spark's Python workers, or the CLI) and the JVM's
(the batches into rows, the sink, its GC), each 2N run less N run, per
file; and how many Python workers read (2: the source's partitions keep
both cores busy). A second table splits the JVM's marginal by thread: the
task threads (the batches into rows, the sink), the JIT compiler threads
(each query's generated classes compiled anew: a fixed cost that differs
from run to run by up to a CPU second, so it does not cancel in
``t(2N) - t(N)``; their totals in both runs are printed), GC and the rest. ``--openpyxl-files M`` has
openpyxl read M and 2M files instead, compared per file (marked so).

``--big`` measures executor memory: the source reads one ~100 MB workbook
(1,048,575 x 25, written by ``cargo run --release --example
generate_bench_data -- --big`` into target/bench-data) on local[2] to the
noop sink, and the largest Python worker's peak RSS is printed beside the
Arrow layer's bound for that file (see ``arrow_bound``: the shared strings
as held, the batches held at once and the parts' readers, over the
worker's baseline reading the same workbook's first 10 rows, written by the
same example: the same columns and types) and beside
``sheetstream.read_excel`` of the same file in one process.

Printed per reader: wall seconds (from the session being up to the job's
end; session start-up is printed apart), the peak RSS of the largest Spark
Python worker (the executors' Python side, where the workbooks are read),
the JVM's peak RSS, and ratios against sheetstream. The workbooks (one sheet
of ``--rows`` x 10 each: ids, numbers, shared-string texts, dates,
booleans; four written with xlsxwriter, the others copies of them) are
written once into target/spark-bench-data.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Optional
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import results  # noqa: E402  (python/benches/results.py)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
COLUMNS = ["id", "x1", "x2", "x3", "city", "product", "day", "ok", "y1", "y2"]


def generate(directory: str, files: int, rows: int, distinct: int = 4) -> list:
    """``files`` workbooks, of which ``distinct`` are written (xlsxwriter
    takes about 30 s for one on a busy 2-core box) and the rest copies."""
    import xlsxwriter

    os.makedirs(directory, exist_ok=True)
    paths = []
    for index in range(files):
        path = os.path.join(directory, f"book_{index:03}_{rows}.xlsx")
        paths.append(path)
        if os.path.exists(path):
            continue
        if index >= distinct:
            shutil.copyfile(paths[index % distinct], path)
            continue
        rng = random.Random(index)
        cities = [f"city {n}" for n in range(500)]
        products = [f"product {n} {'x' * (n % 13)}" for n in range(2000)]
        temporary = path + ".part"
        workbook = xlsxwriter.Workbook(temporary, {"constant_memory": True})
        date_format = workbook.add_format({"num_format": "yyyy-mm-dd"})
        sheet = workbook.add_worksheet("Data")
        for column, name in enumerate(COLUMNS):
            sheet.write_string(0, column, name)
        start = datetime.date(2020, 1, 1)
        for row in range(1, rows + 1):
            sheet.write_number(row, 0, index * 10_000_000 + row)
            sheet.write_number(row, 1, rng.random() * 1000)
            sheet.write_number(row, 2, round(rng.uniform(-50, 50), 2))
            sheet.write_number(row, 3, rng.randint(0, 10_000))
            sheet.write_string(row, 4, rng.choice(cities))
            sheet.write_string(row, 5, rng.choice(products))
            sheet.write_datetime(row, 6, start + datetime.timedelta(days=row % 1500), date_format)
            sheet.write_boolean(row, 7, rng.random() < 0.5)
            sheet.write_number(row, 8, rng.random())
            sheet.write_number(row, 9, rng.gauss(0, 1))
        workbook.close()
        os.replace(temporary, path)
    return paths


#: What the JVM's threads do, as :func:`jvm_thread_kind` names it.
JVM_THREAD_KINDS = ("tasks", "jit", "gc", "other")


def jvm_thread_kind(name: str) -> str:
    """A JVM thread by its name (Linux's 15-character ``comm``): Spark's
    task threads (``Executor task launch worker``: the batches from the
    Python workers read, turned into rows, the sink), HotSpot's compiler
    threads (``C1 CompilerThre``, ``C2 CompilerThre``: Spark generates
    classes for each query, which the JIT compiles anew), its GC threads,
    or the rest (the driver's planning, the scheduler)."""
    if name.startswith("Executor task"):
        return "tasks"
    if "CompilerThre" in name:
        return "jit"
    if name.startswith(("GC Thread", "G1 ")):
        return "gc"
    return "other"


class WorkerPeaks:
    """Samples /proc for this process's descendants: the largest VmHWM
    (peak RSS) of a Spark Python worker, and of the JVM."""

    def __init__(self) -> None:
        self.python_peak = 0
        self.jvm_peak = 0
        #: CPU seconds (user + system) of each Python process seen, by pid.
        self.python_cpu: dict = {}
        #: The same for each JVM.
        self.jvm_cpu: dict = {}
        #: The JVMs' CPU seconds by thread, (pid, tid) -> (kind, seconds),
        #: kind one of :data:`JVM_THREAD_KINDS`.
        self.jvm_threads: dict = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "WorkerPeaks":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sample()
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            self.sample()

    def sample(self) -> None:
        me = os.getpid()
        parents = {}
        status = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/status") as file:
                    fields = dict(line.split(":", 1) for line in file if ":" in line)
                with open(f"/proc/{entry}/cmdline", "rb") as file:
                    command = file.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            try:
                with open(f"/proc/{entry}/stat") as file:
                    # utime and stime: the 12th and 13th fields after the
                    # command's closing parenthesis.
                    ticks = file.read().rsplit(")", 1)[1].split()
                cpu = (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
            except (OSError, IndexError, ValueError):
                cpu = 0.0
            parents[int(entry)] = int(fields["PPid"])
            status[int(entry)] = (fields.get("VmHWM", "0 kB"), command, cpu)
        for pid, (hwm, command, cpu) in status.items():
            ancestor = parents.get(pid)
            while ancestor not in (None, 0, 1, me):
                ancestor = parents.get(ancestor)
            if ancestor != me:
                continue  # not a descendant
            kib = int(hwm.split()[0])
            if os.path.basename(command.split(" ")[0]) == "java":
                self.jvm_peak = max(self.jvm_peak, kib)
                self.jvm_cpu[pid] = max(self.jvm_cpu.get(pid, 0.0), cpu)
                self._sample_threads(pid)
            else:  # Spark's Python daemon and workers, or the CLI
                self.python_peak = max(self.python_peak, kib)
                self.python_cpu[pid] = max(self.python_cpu.get(pid, 0.0), cpu)

    def _sample_threads(self, pid: int) -> None:
        """The CPU seconds of each thread of the JVM ``pid`` so far (a
        thread that ended keeps its last sample: the compiler threads come
        and go)."""
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as file:
                    name = file.read().strip()
                with open(f"/proc/{pid}/task/{tid}/stat") as file:
                    ticks = file.read().rsplit(")", 1)[1].split()
                cpu = (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
            except (OSError, IndexError, ValueError):
                continue
            key = (pid, int(tid))
            seen = self.jvm_threads.get(key, ("", 0.0))[1]
            self.jvm_threads[key] = (jvm_thread_kind(name), max(seen, cpu))

    def jvm_cpu_by_kind(self) -> dict:
        """The JVMs' CPU seconds by :func:`jvm_thread_kind`."""
        totals = dict.fromkeys(JVM_THREAD_KINDS, 0.0)
        for kind, cpu in self.jvm_threads.values():
            totals[kind] += cpu
        return totals

    def busy_workers(self) -> int:
        """Python processes that ran over a second of CPU: how many Spark
        Python workers read at once (the daemon and idle workers do not)."""
        return sum(1 for cpu in self.python_cpu.values() if cpu > 1.0)


def spark_session():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("sheetstream-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "65536")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def run_reader(reader: str, directory: str, paths: list) -> dict:
    """Runs in the child process: one reader, one fresh session."""
    started = time.perf_counter()
    if reader == "read-excel-big":
        # For contrast: the whole sheet into one table in this process.
        import resource

        import sheetstream

        begin = time.perf_counter()
        table = sheetstream.read_excel(paths[0], to="pyarrow")
        wall = time.perf_counter() - begin
        return {
            "reader": reader,
            "wall": wall,
            "startup": 0.0,
            "rows": table.num_rows,
            "table_mib": table.nbytes / 2**20,
            "python_peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "jvm_peak_mib": 0.0,
        }
    with WorkerPeaks() as peaks:
        if reader == "sheetstream-parquet":
            cli = os.environ.get("SHEETSTREAM_CLI") or os.path.join(REPO, "target", "release", "sheetstream")
            out = tempfile.mkdtemp(prefix="spark-bench-parquet-")
            try:
                begin = time.perf_counter()
                subprocess.run([cli, "parquet", *paths, "-o", os.path.join(out, "all.parquet"), "--quiet"], check=True)
                wall = time.perf_counter() - begin
            finally:
                shutil.rmtree(out, ignore_errors=True)
            startup = 0.0
        elif reader == "sheetstream-no-spark":
            # The data source's own planning and read(), in two processes
            # (as local[2] runs two tasks), without Spark: what is left of
            # the data source's time is Spark's engine.
            from multiprocessing import get_context

            startup = 0.0
            begin = time.perf_counter()
            with get_context("spawn").Pool(2) as pool:
                pool.map(_read_partitions, [(directory, 0), (directory, 1)])
            wall = time.perf_counter() - begin
        else:
            prepared = prepare_arrow_files(directory) if reader == "spark-arrow-source" else None
            session = spark_session()
            startup = time.perf_counter() - started
            begin = time.perf_counter()
            if reader == "sheetstream-big":
                import sheetstream.spark

                sheetstream.spark.register(session)
                df = session.read.format("sheetstream").load(paths[0])
            elif reader == "sheetstream":
                import sheetstream.spark

                sheetstream.spark.register(session)
                listed = sorted(name for name in os.listdir(directory) if name.endswith(".xlsx"))
                everything = len(paths) == len(listed)
                df = session.read.format("sheetstream").load(directory if everything else paths)
            elif reader in ("spark-empty-source", "spark-arrow-source"):
                df = reference_source(session, reader, prepared)
            else:
                engine = reader.split("-", 1)[1]
                df = pandas_read(session, paths, engine)
            df.write.format("noop").mode("overwrite").save()
            wall = time.perf_counter() - begin
            # The task threads end with the session: their CPU before.
            peaks.sample()
            session.stop()
    return {
        "reader": reader,
        "wall": wall,
        "startup": startup,
        "python_peak_mib": peaks.python_peak / 1024,
        "jvm_peak_mib": peaks.jvm_peak / 1024,
        "python_cpu": sum(peaks.python_cpu.values()),
        "jvm_cpu": sum(peaks.jvm_cpu.values()),
        "jvm_cpu_by_kind": peaks.jvm_cpu_by_kind(),
        "busy_workers": peaks.busy_workers(),
    }


def _read_partitions(job: tuple) -> int:
    """Every other partition the data source plans, read as its tasks read them."""
    directory, first = job
    from sheetstream.spark import SheetstreamDataSource

    source = SheetstreamDataSource({"path": directory})
    reader = source.reader(source.schema())
    rows = 0
    for partition in reader.partitions()[first::2]:
        for batch in reader.read(partition):
            rows += batch.num_rows
    return rows


def prepare_arrow_files(directory: str) -> dict:
    """The batches the sheetstream source yields for ``directory``, written
    once as Arrow IPC files (one per work item, in its partitions), with
    the source's schema: what ``spark-arrow-source`` reads."""
    import pyarrow as pa
    from sheetstream.spark import BatchConformer, SheetstreamDataSource

    source = SheetstreamDataSource({"path": directory})
    schema = source.schema()
    reader = source.reader(schema)
    target = directory.rstrip("/") + "-arrow"
    partitions = []
    for partition in reader.partitions():
        files = []
        for item in partition.items:
            path = os.path.join(target, f"{os.path.basename(item.path)}-{item.position}.arrows")
            files.append(path)
            if os.path.exists(path):
                continue
            os.makedirs(target, exist_ok=True)
            conformer = BatchConformer(reader.settings, schema)
            with pa.OSFile(path + ".part", "wb") as sink, pa.ipc.new_file(sink, conformer.target) as writer:
                for batch in conformer.read_item(item):
                    writer.write_batch(batch)
            os.replace(path + ".part", path)
        partitions.append(files)
    return {"schema": schema.json(), "partitions": partitions}


def reference_source(session, reader: str, prepared: Optional[dict]):
    """The two reference Python data sources (see the module's docs)."""
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
    from pyspark.sql.types import StructType

    if prepared is None:  # spark-empty-source: the bench's columns, no rows
        from pyspark.sql.types import StringType, StructField

        schema = StructType([StructField(name, StringType()) for name in COLUMNS])
        partitions: list = [[]]
    else:
        schema = StructType.fromJson(json.loads(prepared["schema"]))
        partitions = prepared["partitions"]

    class FilesPartition(InputPartition):
        def __init__(self, index: int, files: list):
            super().__init__(index)
            self.files = files

    class ArrowFilesReader(DataSourceReader):
        def partitions(self):
            return [FilesPartition(index, files) for index, files in enumerate(partitions)]

        def read(self, partition):
            import pyarrow as pa

            for path in partition.files:
                with pa.memory_map(path) as source:
                    file = pa.ipc.open_file(source)
                    for index in range(file.num_record_batches):
                        yield file.get_batch(index)

    class ReferenceSource(DataSource):
        @classmethod
        def name(cls) -> str:
            return "bench_reference"

        def schema(self):
            return schema

        def reader(self, schema):
            return ArrowFilesReader()

    session.dataSource.register(ReferenceSource)
    return session.read.format("bench_reference").load()


def pandas_read(session, paths: list, engine: str):
    """The workaround without spark-excel: one task per file, the whole
    sheet read by pandas on the executor."""
    from pyspark.sql.types import (
        BooleanType,
        DoubleType,
        LongType,
        StringType,
        StructField,
        StructType,
        TimestampNTZType,
    )

    schema = StructType(
        [
            StructField("id", LongType()),
            StructField("x1", DoubleType()),
            StructField("x2", DoubleType()),
            StructField("x3", LongType()),
            StructField("city", StringType()),
            StructField("product", StringType()),
            StructField("day", TimestampNTZType()),
            StructField("ok", BooleanType()),
            StructField("y1", DoubleType()),
            StructField("y2", DoubleType()),
        ]
    )

    def read_files(frames):
        import pandas

        for frame in frames:
            for path in frame["path"]:
                sheet = pandas.read_excel(path, engine=engine)
                sheet["day"] = pandas.to_datetime(sheet["day"])
                yield sheet

    listing = session.createDataFrame([(path,) for path in paths], "path string").repartition(len(paths))
    return listing.mapInPandas(read_files, schema)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=32)
    parser.add_argument("--rows", type=int, default=125_000)
    parser.add_argument("--skip", action="append", default=[], help="a reader to leave out")
    parser.add_argument(
        "--openpyxl-files",
        type=int,
        default=0,
        help="files pandas-openpyxl reads (default 0: all); with fewer, its time is scaled "
        "to all files, marked so and left out of the targets (scaling counts Spark's fixed "
        "cost again for each share, so it overestimates); with --marginal, openpyxl reads "
        "this many and twice as many files and is compared per file (marked)",
    )
    parser.add_argument(
        "--marginal",
        type=int,
        default=0,
        help="N: each reader on N and 2N files, t(2N) - t(N) per reader (sets --files to 2N)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="with --marginal: run each reader on N and 2N files this many times, alternately, "
        "and take the fastest of each (printed beside)",
    )
    parser.add_argument(
        "--big",
        action="store_true",
        help="executor memory: the source reading one ~100 MB workbook (1,048,575 x 25), the "
        "Python worker's peak RSS beside the Arrow layer's bound and read_excel's peak",
    )
    parser.add_argument("--big-path", help=argparse.SUPPRESS)
    parser.add_argument("--subset", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.marginal:
        args.files = 2 * args.marginal
    directory = os.path.join(REPO, "target", "spark-bench-data", f"{args.files}x{args.rows}")
    if args.child and args.big_path:
        print(json.dumps(run_reader(args.child, os.path.dirname(args.big_path), [args.big_path])))
        return
    if args.big:
        big(args)
        return
    if args.child:
        paths = sorted(os.path.join(directory, name) for name in os.listdir(directory) if name.endswith(".xlsx"))
        if args.subset:
            paths = paths[: args.subset]
        print(json.dumps(run_reader(args.child, directory, paths)))
        return
    begin = time.perf_counter()
    paths = generate(directory, args.files, args.rows)
    print(f"{len(paths)} workbooks of {args.rows} x 10 in {directory} "
          f"({sum(os.path.getsize(p) for p in paths) / 1e6:.1f} MB; ready in {time.perf_counter() - begin:.1f} s)")
    if args.marginal:
        marginal(args, paths)
        return
    readers = [
        "sheetstream",
        "sheetstream-no-spark",
        "sheetstream-parquet",
        "spark-empty-source",
        "spark-arrow-source",
        "pandas-calamine",
        "pandas-openpyxl",
    ]
    results = {}
    for reader in readers:
        if reader in args.skip:
            continue
        subset = args.openpyxl_files if reader == "pandas-openpyxl" and 0 < args.openpyxl_files < args.files else 0
        child = subprocess.run(
            [sys.executable, __file__, "--files", str(args.files), "--rows", str(args.rows),
             "--child", reader, "--subset", str(subset)],
            capture_output=True,
            text=True,
        )
        lines = [line for line in child.stdout.splitlines() if line.startswith("{")]
        if child.returncode != 0 or not lines:
            print(f"{reader}: failed (exit {child.returncode})\n{child.stderr[-3000:]}")
            continue
        result = json.loads(lines[-1])
        if subset:
            print(f"  {reader}: {result['wall']:.2f} s for {subset} files, scaled x{args.files / subset:g}")
            result["wall"] *= args.files / subset
            reader = f"{reader} (scaled)"
        results[reader] = result
        print(f"  {reader}: {result['wall']:.2f} s", flush=True)
    base = results.get("sheetstream")
    print()
    print(f"{'reader':<26}{'wall s':>9}{'vs sheetstream':>16}{'worker peak MiB':>20}{'JVM peak MiB':>14}{'startup s':>11}")
    for reader, result in results.items():
        ratio = f"{result['wall'] / base['wall']:.2f}x" if base else "-"
        print(
            f"{reader:<26}{result['wall']:>9.2f}{ratio:>16}{result['python_peak_mib']:>20.0f}"
            f"{result['jvm_peak_mib']:>14.0f}{result['startup']:>11.1f}"
        )
    if base:
        for reader, target in (("pandas-calamine", 10), ("pandas-openpyxl", 40)):
            if reader in results:
                speedup = results[reader]["wall"] / base["wall"]
                print(f"target: sheetstream >= {target}x faster than {reader}: {speedup:.1f}x "
                      f"({'met' if speedup >= target else 'not met'})")
        if "sheetstream-parquet" in results:
            overhead = base["wall"] / results["sheetstream-parquet"]["wall"]
            print(f"target: data source <= 2x `sheetstream parquet`: {overhead:.2f}x "
                  f"({'met' if overhead <= 2 else 'not met'})")
        empty, arrow = results.get("spark-empty-source"), results.get("spark-arrow-source")
        if empty and arrow:
            print(f"Spark's floor: any Python data source {empty['wall']:.2f} s before its first row; "
                  f"these rows as ready-made Arrow batches {arrow['wall']:.2f} s; "
                  f"sheetstream reading the workbooks adds {base['wall'] - arrow['wall']:.2f} s")
            if "sheetstream-parquet" in results:
                print(f"  the ready-made batches alone are {arrow['wall'] / results['sheetstream-parquet']['wall']:.2f}x "
                      f"`sheetstream parquet`")
            for reader in ("pandas-calamine", "pandas-openpyxl"):
                if reader in results:
                    print(f"  {reader} is {results[reader]['wall'] / arrow['wall']:.1f}x the ready-made batches")


def run_child(args: argparse.Namespace, reader: str, subset: int, big_path: str = "") -> Optional[dict]:
    extra = ["--big-path", big_path] if big_path else []
    child = subprocess.run(
        [sys.executable, __file__, "--files", str(args.files), "--rows", str(args.rows),
         "--child", reader, "--subset", str(subset), *extra],
        capture_output=True,
        text=True,
    )
    lines = [line for line in child.stdout.splitlines() if line.startswith("{")]
    if child.returncode != 0 or not lines:
        print(f"{reader}: failed (exit {child.returncode})\n{child.stderr[-3000:]}")
        return None
    return json.loads(lines[-1])


BIG_WORKBOOK = "one_sheet_1048575_x25.xlsx"
#: The big workbook's first rows (a header and ``TINY_ROWS`` rows), written
#: by the same recipe: the same columns and types, so the same casts to
#: Spark's schema (the timestamps' import pyarrow.compute, about 9 MiB of
#: the worker's RSS) and the same code paths run in the baseline.
TINY_WORKBOOK = "tiny_10_x25_mixed.xlsx"
TINY_ROWS = 10


def bench_workbooks() -> tuple:
    """The ~100 MB workbook and its first rows, written by the Rust
    example (rust_xlsxwriter writes it in seconds where xlsxwriter would
    take minutes)."""
    directory = os.environ.get("SHEETSTREAM_BENCH_DIR") or os.path.join(REPO, "target", "bench-data")
    paths = (os.path.join(directory, BIG_WORKBOOK), os.path.join(directory, TINY_WORKBOOK))
    if not all(os.path.exists(path) for path in paths):
        subprocess.run(
            ["cargo", "run", "--release", "--quiet", "--example", "generate_bench_data", "--", "--big"],
            cwd=REPO,
            check=True,
        )
    return paths


#: Batches the source's worker holds at once at most: two in the Arrow
#: layer's channel (`CHANNEL_BATCHES`), one being built on its worker
#: thread (or built and waiting to be handed over), the one Python
#: conforms and hands to Spark, and the one before it, which Spark's loops
#: (`records_to_arrow_batches`, the Arrow serializer's) hold until the
#: next comes. The batch conformed to Spark's schema shares the batch's
#: buffers but for the columns cast (the 3 timestamp columns here: 1.5 MiB
#: in pyarrow's pool).
BATCHES_HELD = 5


def arrow_bound(path: str, batch_size: int = 65536) -> dict:
    """The Arrow layer's documented memory for reading ``path`` (a batch at
    a time, plus the shared strings; ARCHITECTURE.md's invariants), from
    the file's own figures:

    - the shared strings as held (src/shared_strings.rs: the text in one
      String and one usize end per string), counted from the workbook's
      shared-strings part, twice over for a growing buffer's slack;
    - ``BATCHES_HELD`` batches of ``batch_size`` rows, one batch's Arrow
      buffers measured on the file's first batch;
    - the parts' readers (ARCHITECTURE.md: "while it is parsed lazily the
      part's compressed bytes, its inflater's input (up to 256 KiB) and
      window"): the shared strings part's compressed bytes, held until the
      table is parsed to its end, and its inflater; the sheet's inflater
      and, on two cores, its pipe's four 576 KiB buffers (src/archive/pipe.rs);
    - each row's own buffers (about twice its XML, under 1 KiB here) are
      left out.
    """
    import re
    import zipfile

    import sheetstream

    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        part = next((name for name in names if name.lower().endswith("sharedstrings.xml")), None)
        xml = archive.read(part) if part else b""
        sheet_part = next(name for name in names if name.startswith("xl/worksheets/sheet"))
        sheet_xml = archive.getinfo(sheet_part).file_size
        compressed = archive.getinfo(part).compress_size if part else 0
    inflater = 256 * 1024 + 32 * 1024  # input chunk and window
    pipe = 4 * (512 + 64) * 1024 if (os.cpu_count() or 1) > 1 else 0
    readers = compressed + inflater * (2 if part else 1) + pipe
    texts = re.findall(rb"<t(?:\s[^>]*)?>([^<]*)</t>", xml)
    strings = xml.count(b"<si>") + xml.count(b"<si ")
    text_bytes = sum(len(text) for text in texts)
    shared = 2 * (text_bytes + 8 * strings)
    with sheetstream.open(path) as workbook:
        first = next(iter(workbook.sheet(0, batch_size=batch_size).iter_batches()))
        batch = first.nbytes
    return {
        "strings": strings,
        "text_bytes": text_bytes,
        "shared": shared,
        "batch": batch,
        "batch_rows": first.num_rows,
        "sheet_xml": sheet_xml,
        "compressed": compressed,
        "pipe": pipe,
        "readers": readers,
        "bound": shared + BATCHES_HELD * batch + readers,
    }


def same_schema(path: str, other: str) -> bool:
    """Whether the two workbooks' first sheets read as the same Arrow
    types (the baseline's worker then runs the casts the big one's does)."""
    import sheetstream

    types = []
    for each in (path, other):
        with sheetstream.open(each) as workbook:
            types.append([field.type for field in workbook.sheet(0).schema])
    return types[0] == types[1]


def big(args: argparse.Namespace) -> None:
    """The source reading one ~100 MB workbook on local[2] to the noop sink:
    the largest Python worker's peak RSS beside the Arrow layer's bound
    (over the worker's own baseline, the empty source's) and beside
    ``sheetstream.read_excel`` of the same file in one process."""
    path, tiny = bench_workbooks()
    mib = 2**20
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB")
    bound = arrow_bound(path)
    same_types = same_schema(path, tiny)
    empty = run_child(args, "sheetstream-big", 1, tiny)
    source = run_child(args, "sheetstream-big", 1, path)
    whole = run_child(args, "read-excel-big", 1, path)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"  shared strings: {bound['strings']:,} strings, {bound['text_bytes'] / mib:.1f} MiB of text "
          f"-> {bound['shared'] / mib:.1f} MiB (text + 8 B a string, x2 for a growing buffer)")
    print(f"  one batch of {bound['batch_rows']:,} rows: {bound['batch'] / mib:.1f} MiB of Arrow buffers; "
          f"{BATCHES_HELD} held at most -> {BATCHES_HELD * bound['batch'] / mib:.1f} MiB")
    print(f"  the parts' readers: the shared strings' compressed bytes {bound['compressed'] / mib:.1f} MiB "
          f"(held while the table is parsed lazily), the sheet's pipe {bound['pipe'] / mib:.2f} MiB, "
          f"the inflaters' input and window -> {bound['readers'] / mib:.1f} MiB")
    print(f"  (the sheet's XML, never held: {bound['sheet_xml'] / mib:.0f} MiB)")
    if not (empty and source):
        return
    baseline = empty["python_peak_mib"]
    limit = baseline + bound["bound"] / mib
    peak = source["python_peak_mib"]
    print(f"Arrow layer's bound: worker baseline {baseline:.0f} MiB (the source's worker reading a "
          f"workbook of the big one's first {TINY_ROWS} rows, "
          f"{'the same' if same_types else 'NOT the same'} column types: Python, pyarrow and its casts, "
          f"sheetstream, Spark's serializer) + {bound['bound'] / mib:.0f} MiB = {limit:.0f} MiB")
    print(f"the source's largest Python worker: peak RSS {peak:.0f} MiB "
          f"({'within' if peak <= limit else 'OVER'} the bound; {peak - baseline:.0f} MiB over the baseline), "
          f"{source['wall']:.1f} s to the noop sink, JVM peak {source['jvm_peak_mib']:.0f} MiB")
    if whole:
        print(f"sheetstream.read_excel of the same file in one process: peak RSS {whole['python_peak_mib']:.0f} MiB "
              f"(the table {whole['table_mib']:.0f} MiB, {whole['rows']:,} rows), {whole['wall']:.1f} s")


def marginal(args: argparse.Namespace, paths: list) -> None:
    """Each reader on N and 2N files; t(2N) - t(N) per reader."""
    n = args.marginal
    size = sum(os.path.getsize(path) for path in paths[:n]) / 1e6
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"N = {n} files ({size:.0f} MB), 2N = {2 * n}")
    readers = ["sheetstream", "sheetstream-parquet", "pandas-calamine", "pandas-openpyxl"]
    rows = {}
    counts = {}  # N, or --openpyxl-files for openpyxl (marked in the table)
    for reader in readers:
        if reader in args.skip:
            continue
        count = args.openpyxl_files if reader == "pandas-openpyxl" and 0 < args.openpyxl_files < n else n
        # N and 2N alternately, --repeat times; the fastest of each (the
        # same best-of-K as the scan bench: a run is slowed, never sped
        # up, by the box, the JIT's varying work and GC).
        firsts, seconds = [], []
        for _ in range(args.repeat):
            firsts.append(run_child(args, reader, count))
            seconds.append(run_child(args, reader, 2 * count))
        if None in firsts or None in seconds:
            continue
        first = min(firsts, key=lambda result: result["wall"])
        second = min(seconds, key=lambda result: result["wall"])
        rows[reader] = (first, second)
        counts[reader] = count
        tries = ""
        if args.repeat > 1:
            walls = [", ".join(f"{result['wall']:.2f}" for result in runs) for runs in (firsts, seconds)]
            tries = f" (fastest of {args.repeat}: {walls[0]}; {walls[1]})"
        print(f"  {reader}: {first['wall']:.2f} s for {count} files, {second['wall']:.2f} s for {2 * count}"
              f"{tries}", flush=True)
    empty = run_child(args, "spark-empty-source", 1)
    one = run_child(args, "sheetstream", 1)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    base = rows.get("sheetstream")
    base_cost = base[1]["wall"] - base[0]["wall"] if base else None
    print(f"{'reader':<22}{'t(N) s':>9}{'t(2N) s':>9}{'t(2N)-t(N) s':>14}{'per file s':>12}"
          f"{'vs source':>11}{'worker MiB':>12}{'Py CPU/file':>13}{'JVM CPU/file':>14}{'busy workers':>14}")
    for reader, (first, second) in rows.items():
        count = counts[reader]
        cost = second["wall"] - first["wall"]
        # Per file, so that a reader on fewer files compares.
        ratio = f"{cost / count / (base_cost / n):.1f}x" if base_cost and base_cost > 0 else "-"
        label = reader if count == n else f"{reader} ({count}/{2 * count})"
        python_cpu = (second.get("python_cpu", 0) - first.get("python_cpu", 0)) / count
        jvm_cpu = (second.get("jvm_cpu", 0) - first.get("jvm_cpu", 0)) / count
        print(f"{label:<22}{first['wall']:>9.2f}{second['wall']:>9.2f}{cost:>14.2f}{cost / count:>12.3f}"
              f"{ratio:>11}{second['python_peak_mib']:>12.0f}{python_cpu:>13.3f}{jvm_cpu:>14.3f}"
              f"{second.get('busy_workers', 0):>14}")
    print("(Py CPU/file, JVM CPU/file: the CPU seconds (user + system) of the Python processes (Spark's "
          "Python workers and planning processes, or the CLI) and of the JVM, 2N run less N run, per file: "
          "what N more files cost in CPU, the fixed costs cancelled; on 2 busy cores the wall marginal is "
          "about their sum / 2. Busy workers: Python processes that ran over 1 s of CPU in the 2N run, "
          "2 when two tasks read at once)")
    spark_rows = {reader: pair for reader, pair in rows.items() if "jvm_cpu_by_kind" in pair[1]}
    if spark_rows:
        print()
        print(f"{'JVM CPU/file by thread':<26}" + "".join(f"{kind:>9}" for kind in JVM_THREAD_KINDS)
              + f"{'JIT in t(N)':>13}{'JIT in t(2N)':>14}")
        for reader, (first, second) in spark_rows.items():
            count = counts[reader]
            before, after = first["jvm_cpu_by_kind"], second["jvm_cpu_by_kind"]
            print(f"{reader:<26}"
                  + "".join(f"{(after[kind] - before[kind]) / count:>9.3f}" for kind in JVM_THREAD_KINDS)
                  + f"{before['jit']:>13.2f}{after['jit']:>14.2f}")
        print("(the JVM's marginal CPU by thread, 2N run less N run, per file: tasks, Spark's task threads "
              "(the Arrow batches read from the Python workers, turned into rows, the sink); jit, HotSpot's "
              "compiler threads, which compile each query's generated classes anew in each run, a fixed "
              "cost whose size varies from run to run (its totals in the two runs beside); gc; other)")
    if empty:
        print(f"Spark's fixed cost (a Python source yielding nothing): {empty['wall']:.2f} s")
    if one:
        print(f"the source reading one workbook ({os.path.getsize(paths[0]) / 1e6:.1f} MB): "
              f"{one['wall']:.2f} s, Python worker peak RSS {one['python_peak_mib']:.0f} MiB")
    if base_cost and base_cost > 0:
        parquet = rows.get("sheetstream-parquet")
        if parquet:
            overhead = base_cost / (parquet[1]["wall"] - parquet[0]["wall"])
            print(f"target: source marginal <= 1.5x `sheetstream parquet`'s: {overhead:.2f}x "
                  f"({'met' if overhead <= 1.5 else 'not met'})")
        for reader, target in (("pandas-calamine", 10), ("pandas-openpyxl", 40)):
            if reader in rows:
                count = counts[reader]
                speedup = (rows[reader][1]["wall"] - rows[reader][0]["wall"]) / count / (base_cost / n)
                fewer = f", per file: {reader} on {count} and {2 * count} files" if count != n else ""
                print(f"target: source marginal >= {target}x faster than {reader}'s: {speedup:.1f}x "
                      f"({'met' if speedup >= target else 'not met'}{fewer})")


if __name__ == "__main__":
    with results.recorded("spark"):
        main()
