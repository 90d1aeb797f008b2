/*
 * The Spark data source "dmpmqmsg": IBM MQ dump files (dmpmqmsg/qload text) read as one
 * row per message and written from rows, as bytes.
 *
 *   spark.read.format("dmpmqmsg").load(paths)
 *   df.write.format("dmpmqmsg").partitionBy("target").save(dir)
 *
 * Why the file-format API (FileFormat, behind Spark's text, CSV and Parquet sources) and
 * not DataSource V2 (the Kafka source's): a dump is a file, and the file-format API gives
 * everything a file source needs from Spark itself. Spark plans the byte-range splits
 * (spark.sql.files.maxPartitionBytes) and this class cuts them on message boundaries
 * (DumpSplitReader); buildReader receives the columns a query selects (requiredSchema),
 * and the scan's ReadSchema shows the pruning; a write with partitionBy("target") is
 * Spark's own dynamic-partition writer, one directory target=<value> per target, with
 * its commit protocol (task attempts, _SUCCESS); and every path goes through Hadoop's
 * FileSystem (file:, hdfs:, s3a:, abfs:, viewfs: ...). Spark 4 itself still plans the
 * built-in file sources through this API (spark.sql.sources.useV1SourceList), because
 * the V2 file writer has no partitionBy; a V2 source would have to rebuild the
 * partitioned writer, the commit protocol and the split planning. Built and tested
 * against PySpark 4.3.0's bundled jars (spark-sql_2.13-4.3.0, Scala 2.13, whose
 * FileFormat trait compiles to a Java interface with default methods).
 *
 * Read schema (SCHEMA, in this order; DumpMessage decodes as the Python reader does):
 *   input_file string    the file, as Spark lists it (its FileStatus path, URL-encoded:
 *                        "file:///x"; _metadata.file_path spells the same file "file:/x")
 *   offset long          byte offset of the message's first line in the file
 *   message_number long  1-based message number in the file
 *   line long            line number of the message's first line
 *   md_<field>           the MQMD (28 fields, dlqhandler.mq.mqmd.MQMD's names and order)
 *   body binary          the message data, MQDLH included
 *   body_length int      its length in bytes (without storing the data: a query of
 *                        lengths copies no body)
 *   has_dlh boolean      the data starts with a valid MQDLH, or (MQMD Format MQHRF2)
 *                        with an MQRFH2 of message properties whose Format is MQDEAD
 *                        and a valid MQDLH behind it (what a DLQ defined PROPCTL(FORCE)
 *                        gives, and IBM's dmpmqmsg unloads): decode_dead_letter(md,
 *                        body), whose rule DumpMessage.decodeDlh follows
 *   dlh_error string     why it has none (the Python reader's words)
 *   dlh_<field>          the MQDLH's fields but StrucId and Version (null without one)
 *   rfh2_in_front int    bytes of the MQRFH2 in front of the MQDLH (0: the data starts
 *                        with the MQDLH; null without an MQDLH)
 *   property_folders array<string>  the property folders (jms, mcd, mq, mq_usr, mqext,
 *                        mqps, usr) holding properties in the MQRFH2 in front of the
 *                        MQDLH or in one right behind it (MQDLH Format MQHRF2: a JMS
 *                        message), sorted, each once; empty for none, null without an
 *                        MQDLH. Decoded only when selected.
 *   dlh_count int        how many MQDLHs are chained from the first (1 or more: each
 *                        whose Format is MQDEAD followed by another, up to 64), as
 *                        dlqhandler.rules.outgoing.header_depth counts them on the
 *                        message a get returns (one per trip through a DLQ: the hop
 *                        count `run`'s --max-hops limits); null without an MQDLH.
 *                        Decoded only when selected.
 *   malformed string     null, or why the record is not a message: "<file>:<line>:
 *                        message <n>: <problem>"; such a row has no md/dlh/body values
 *                        (lines after a message's data lines that are not a message:
 *                        a row of their own after the message's, in its number)
 *   record binary        the message's bytes as in the file: its first line up to the
 *                        next message (null for a cut-off or over-long message)
 *   split_start long     the byte offset where the message's split begins (Spark's
 *                        _metadata.file_block_start): with input_file, which split read
 *                        it. A query that takes these two from the source, not from
 *                        _metadata, spares Spark a copy of every row (its metadata
 *                        columns are joined to the row and the pair projected again).
 *   msg_id_0, msg_id_1, msg_id_2 long  the MsgId's three 8-byte thirds, each a
 *                        big-endian signed long (null unless the MsgId is 24 bytes): a
 *                        MsgId in fixed-width values, which Spark's hash aggregation keeps
 *                        in its buffers (a binary value makes it sort every row); SQL has
 *                        no cast from binary to a number, and conv(hex(..)) per message
 *                        cost the report a tenth of its scan.
 * Options: maxRecordBytes (default 1 GiB): a longer message is a malformed row;
 * cutOffLine ("data", the default, or "message"): the line a cut-off message's malformed
 * reason names, its last data line (as the Python reader says it) or its first line.
 *
 * Write: a column "record" (binary) is required; rows with a null record (the cut-off
 * ones, reported on read) are not written. A boolean column "strip_dlh", when true,
 * writes the message without its MQDLH (DumpRecordWriter); when the rows also carry the
 * reader's md_format, dlh_format, dlh_encoding and dlh_coded_char_set_id, the writer
 * takes the MQDLH's values from them instead of decoding the record again. Option "header": the file
 * header's text (default dmpmqmsg's: "* DMPMQMSG Version:9.4 Created:<ctime>" and an
 * empty line); "" writes none (parts that a driver joins under one header). Each part
 * file is a whole dmpmqmsg file (with the empty header: its messages).
 *
 * Option "audit" (column names, comma separated): besides its .dmp file, each part also
 * writes those columns of every row it receives, whatever its record, to a Parquet file
 * beside it (part-....audit.<codec>.parquet), through Spark's own Parquet writer
 * (ParquetFileFormat.prepareWrite, so the same codec, schema and options as
 * df.write.parquet). Why this way: Spark writes one format per job, and the drain needs
 * both its dump files and its audit from one scan of the input; writing the audit from
 * the same OutputWriter costs nothing more than the Parquet encoding (no second read, no
 * JSON text, no row written twice into a shuffle), and the Parquet files sit in the task
 * attempt's directory, so Spark's commit protocol commits or discards them with the dump
 * files. Rows that go in no dump (a null record) still get their audit row; a part that
 * wrote no record then has no .dmp file. A task's parts share one Parquet file (Audit):
 * one per task, not one per directory. The caller gathers the Parquet files (they have
 * one schema) into a Parquet directory of its own.
 *
 * Option "counts" (column names, comma separated; boolean, int, bigint, string or array
 * of int): each part also counts its rows by those columns and writes the counts beside
 * it (part-....counts.json, RowCounts), committed with it; the caller sums them, so a
 * summary of the write costs no second job.
 *
 * Option "groups" (six column names, with "audit"): each task attempt also writes the
 * state of every message group among its rows (GroupStates), beside its audit, when its
 * last part closes; the caller merges them to find the groups a write would split.
 */
package dlqhandler.spark;

import java.io.IOException;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.spark.TaskContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.execution.datasources.FileFormat;
import org.apache.spark.sql.execution.datasources.OutputWriter;
import org.apache.spark.sql.execution.datasources.OutputWriterFactory;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.util.SerializableConfiguration;

import scala.Function1;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.runtime.AbstractFunction1;

public final class DmpmqmsgFileFormat implements FileFormat, DataSourceRegister, Serializable {
    private static final long serialVersionUID = 1L;

    static final String[] DLH_COLUMNS = {
        "reason", "dest_q_name", "dest_q_mgr_name", "encoding", "coded_char_set_id", "format",
        "put_appl_type", "put_appl_name", "put_date", "put_time"};
    public static final StructType SCHEMA = schema();

    // column ids
    private static final int INPUT_FILE = 0, OFFSET = 1, NUMBER = 2, LINE = 3, MD = 4;
    private static final int BODY = MD + DumpTables.MD_FIELDS.length;
    private static final int BODY_LENGTH = BODY + 1;
    private static final int HAS_DLH = BODY + 2, DLH_ERROR = BODY + 3, DLH = BODY + 4;
    private static final int IN_FRONT = DLH + DLH_COLUMNS.length, FOLDERS = IN_FRONT + 1;
    private static final int DLH_COUNT = FOLDERS + 1;
    private static final int MALFORMED = DLH_COUNT + 1, RECORD = MALFORMED + 1;
    private static final int SPLIT_START = RECORD + 1;
    private static final int MSG_ID_LONGS = SPLIT_START + 1, LAST = MSG_ID_LONGS + 2;
    private static final int MSG_ID_FIELD = java.util.Arrays.asList(DumpTables.MD_FIELDS)
        .indexOf("msg_id");

    private static StructType schema() {
        StructType s = new StructType()
            .add("input_file", DataTypes.StringType, false)
            .add("offset", DataTypes.LongType, false)
            .add("message_number", DataTypes.LongType, false)
            .add("line", DataTypes.LongType, false);
        Object[] defaults = DumpTables.mdDefaults();
        for (int i = 0; i < DumpTables.MD_FIELDS.length; i++) {
            s = s.add("md_" + DumpTables.MD_FIELDS[i], typeOf(defaults[i]), true);
        }
        s = s.add("body", DataTypes.BinaryType, true)
            .add("body_length", DataTypes.IntegerType, true)
            .add("has_dlh", DataTypes.BooleanType, true)
            .add("dlh_error", DataTypes.StringType, true);
        for (String name : DLH_COLUMNS) {
            boolean text = name.contains("name") || name.equals("format")
                || name.startsWith("put_d") || name.startsWith("put_t");
            s = s.add("dlh_" + name, text ? DataTypes.StringType : DataTypes.IntegerType, true);
        }
        return s.add("rfh2_in_front", DataTypes.IntegerType, true)
            .add("property_folders", DataTypes.createArrayType(DataTypes.StringType, false), true)
            .add("dlh_count", DataTypes.IntegerType, true)
            .add("malformed", DataTypes.StringType, true)
            .add("record", DataTypes.BinaryType, true)
            .add("split_start", DataTypes.LongType, false)
            .add("msg_id_0", DataTypes.LongType, true)
            .add("msg_id_1", DataTypes.LongType, true)
            .add("msg_id_2", DataTypes.LongType, true);
    }

    private static DataType typeOf(Object value) {
        if (value instanceof Integer) {
            return DataTypes.IntegerType;
        }
        return value instanceof String ? DataTypes.StringType : DataTypes.BinaryType;
    }

    @Override
    public String shortName() {
        return "dmpmqmsg";
    }

    @Override
    public String toString() {
        return "dmpmqmsg";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DmpmqmsgFileFormat;
    }

    @Override
    public int hashCode() {
        return DmpmqmsgFileFormat.class.hashCode();
    }

    @Override
    public Option<StructType> inferSchema(SparkSession spark,
                                          scala.collection.immutable.Map<String, String> options,
                                          Seq<FileStatus> files) {
        return Option.apply(SCHEMA);
    }

    @Override
    public boolean isSplitable(SparkSession spark,
                               scala.collection.immutable.Map<String, String> options,
                               org.apache.hadoop.fs.Path path) {
        return true;
    }

    // --- read ----------------------------------------------------------------------

    @Override
    public Function1<PartitionedFile, scala.collection.Iterator<InternalRow>> buildReader(
            SparkSession spark, StructType dataSchema, StructType partitionSchema,
            StructType requiredSchema, Seq<Filter> filters,
            scala.collection.immutable.Map<String, String> options, Configuration hadoopConf) {
        Broadcast<SerializableConfiguration> conf = spark.sparkContext().broadcast(
            new SerializableConfiguration(hadoopConf),
            scala.reflect.ClassTag$.MODULE$.apply(SerializableConfiguration.class));
        int[] columns = new int[requiredSchema.fields().length];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = SCHEMA.fieldIndex(requiredSchema.fields()[i].name());
        }
        long maxRecord = Long.parseLong(options.getOrElse("maxRecordBytes",
            () -> String.valueOf(1L << 30)));
        // cutOffLine "message": a cut-off message is named by its first line (the drain's
        // audit), else by its last data line (the Python reader's DumpFormatError)
        boolean cutAtMessage = "message".equals(options.getOrElse("cutOffLine", () -> "data"));
        return new Reader(conf, columns, Math.min(maxRecord, Integer.MAX_VALUE - 64),
                          cutAtMessage);
    }

    private static final class Reader
            extends AbstractFunction1<PartitionedFile, scala.collection.Iterator<InternalRow>>
            implements Serializable {
        private static final long serialVersionUID = 1L;
        private final Broadcast<SerializableConfiguration> conf;
        private final int[] columns;
        private final long maxRecord;
        private final boolean cutAtMessage;

        Reader(Broadcast<SerializableConfiguration> conf, int[] columns, long maxRecord,
               boolean cutAtMessage) {
            this.conf = conf;
            this.columns = columns;
            this.maxRecord = maxRecord;
            this.cutAtMessage = cutAtMessage;
        }

        @Override
        public scala.collection.Iterator<InternalRow> apply(PartitionedFile file) {
            try {
                DumpSplitReader split = new DumpSplitReader(conf.value().value(),
                    file.toPath(), file.filePath().toString(), file.start(),
                    file.start() + file.length(), maxRecord);
                TaskContext task = TaskContext.get();
                if (task != null) {
                    task.addTaskCompletionListener(new org.apache.spark.util.TaskCompletionListener() {
                        @Override
                        public void onTaskCompletion(TaskContext context) {
                            try {
                                split.close();
                            } catch (IOException e) {
                                // closing a read stream: nothing was written
                            }
                        }
                    });
                }
                return new Rows(split, columns, cutAtMessage);
            } catch (IOException e) {
                throw new DumpReadException(e.getMessage(), e);
            }
        }
    }

    /** A problem with a file as a whole (not a dump, unreadable): names file and line. */
    static final class DumpReadException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DumpReadException(String message, Throwable cause) {
            super("dmpmqmsg: " + message, cause);
        }
    }

    private static final class Rows extends scala.collection.AbstractIterator<InternalRow> {
        private final DumpSplitReader split;
        private final int[] columns;
        private final boolean decode;
        private final boolean locate;
        private final boolean needBody;      // the body column: the whole data kept
        private final boolean needDlh;       // an MQDLH column
        private final boolean needFolders;   // property_folders
        private final boolean needCount;     // dlh_count
        private final boolean needIdLongs;   // msg_id_0, msg_id_1, msg_id_2
        private final UTF8String file;
        private final boolean[] wanted;      // by column: selected (only those are converted)
        private final boolean[] mdFields;    // by MQMD field: selected (only those are stored)
        private final boolean cutAtMessage;
        private DumpSplitReader.Raw next;
        private boolean done;

        Rows(DumpSplitReader split, int[] columns, boolean cutAtMessage) {
            this.split = split;
            this.columns = columns;
            this.cutAtMessage = cutAtMessage;
            boolean d = false;
            boolean l = false;
            boolean body = false;
            boolean dlh = false;
            boolean folders = false;
            boolean count = false;
            boolean record = false;
            boolean idLongs = false;
            this.wanted = new boolean[LAST + 1];
            for (int c : columns) {
                wanted[c] = true;
                idLongs |= c >= MSG_ID_LONGS;
                d |= c >= MD && c <= MALFORMED || c >= MSG_ID_LONGS;
                l |= c == NUMBER || c == LINE;
                body |= c == BODY;
                dlh |= c >= HAS_DLH && c < MALFORMED;
                folders |= c == FOLDERS;
                count |= c == DLH_COUNT;
                record |= c == RECORD;
            }
            this.mdFields = new boolean[DumpTables.MD_FIELDS.length];
            for (int i = 0; i < mdFields.length; i++) {
                mdFields[i] = wanted[MD + i];
            }
            mdFields[MSG_ID_FIELD] |= idLongs;
            this.decode = d;
            this.locate = l;
            this.needBody = body;
            this.needDlh = dlh;
            this.needFolders = folders;
            this.needCount = count;
            this.needIdLongs = idLongs;
            split.keepBytes = d || record;  // a count copies nothing
            this.file = UTF8String.fromString(split.name);
        }

        @Override
        public boolean hasNext() {
            if (next == null && !done) {
                try {
                    next = split.next();
                } catch (IOException e) {
                    throw new DumpReadException(split.name + ": " + e.getMessage(), e);
                }
                done = next == null;
            }
            return next != null;
        }

        @Override
        public InternalRow next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            DumpSplitReader.Raw raw = next;
            next = null;
            try {
                return row(raw);
            } catch (IOException e) {
                throw new DumpReadException(split.name + ": " + e.getMessage(), e);
            }
        }

        private InternalRow row(DumpSplitReader.Raw raw) throws IOException {
            Object[] all = new Object[LAST + 1];
            all[INPUT_FILE] = file;
            all[SPLIT_START] = split.start;
            all[OFFSET] = raw.offset;
            all[RECORD] = raw.cut ? null : raw.bytes;
            String malformed = null;
            int problemLine = 0;
            DumpMessage m = null;
            if (decode) {
                if (raw.bytes == null) {
                    malformed = "the message is " + raw.length + " bytes, longer than "
                        + "maxRecordBytes (" + split.maxRecord + "): it was not read; raise "
                        + "the option to read it";
                } else if (raw.cut) {
                    malformed = "the file is cut off " + (raw.newlineAtEnd
                        ? "after this data line" : "in the middle of this line (no newline)")
                        + ": dmpmqmsg ends every message with an empty line and this last "
                        + "message has none, so its data may be incomplete; nothing of this "
                        + "message was read. Copy or dump the file again (if it is complete, "
                        + "add an empty line at its end)";
                    problemLine = cutAtMessage ? 0 : raw.lastLine;
                } else if (raw.junk) {
                    int n = 0;
                    while (n < raw.bytes.length && raw.bytes[n] != '\n') {
                        n++;
                    }
                    if (n > 0 && raw.bytes[n - 1] == '\r') {
                        n--;
                    }
                    malformed = "expected a message ('A' or 'N' line), found "
                        + DumpMessage.show(raw.bytes, 0, n, 24);
                } else {
                    m = DumpMessage.decode(raw.bytes, 0, raw.bytes.length,
                        needBody ? Integer.MAX_VALUE : DumpMessage.DLH_PREFIX, mdFields);
                    if (m.error != null) {
                        malformed = m.error;
                        problemLine = m.errorLine;
                    }
                }
            }
            if (locate || malformed != null) {
                long[] at = split.located(raw);
                all[LINE] = at[0];
                all[NUMBER] = at[1];
                if (malformed != null) {
                    // junk follows its message's data lines: "after message N", as the
                    // Python reader says (message N itself was read whole)
                    all[MALFORMED] = UTF8String.fromString(split.name + ":" + (at[0] + problemLine)
                        + (raw.junk ? ": after message " : ": message ") + at[1] + ": "
                        + malformed);
                }
            }
            if (m != null && m.error == null) {
                for (int i = 0; i < m.md.length; i++) {
                    if (wanted[MD + i]) {
                        Object v = m.md[i];
                        all[MD + i] = v instanceof String ? UTF8String.fromString((String) v) : v;
                    }
                }
                all[BODY] = m.body;
                all[BODY_LENGTH] = m.bodyLength;
                if (needIdLongs && m.md[MSG_ID_FIELD] instanceof byte[] id && id.length == 24) {
                    java.nio.ByteBuffer at = java.nio.ByteBuffer.wrap(id);  // big-endian
                    for (int j = 0; j < 3; j++) {
                        all[MSG_ID_LONGS + j] = at.getLong(8 * j);
                    }
                }
                if (needDlh) {
                    DumpMessage.Dlh dlh = m.dlh(raw.bytes, needFolders, needCount);
                    all[HAS_DLH] = dlh.error == null;
                    if (dlh.error != null) {
                        all[DLH_ERROR] = UTF8String.fromString(dlh.error);
                    } else {
                        for (int i = 0; i < DLH_COLUMNS.length; i++) {
                            if (wanted[DLH + i]) {
                                Object v = dlh.values[i];
                                all[DLH + i] = v instanceof String
                                    ? UTF8String.fromString((String) v) : v;
                            }
                        }
                        all[IN_FRONT] = dlh.inFront;
                        if (needCount) {
                            all[DLH_COUNT] = dlh.depth;
                        }
                        if (dlh.folders != null) {
                            Object[] names = new Object[dlh.folders.length];
                            for (int i = 0; i < names.length; i++) {
                                names[i] = UTF8String.fromString(dlh.folders[i]);
                            }
                            all[FOLDERS] = new GenericArrayData(names);
                        }
                    }
                }
            }
            Object[] out = new Object[columns.length];
            for (int i = 0; i < columns.length; i++) {
                out[i] = all[columns[i]];
            }
            return new GenericInternalRow(out);
        }
    }

    // --- write ---------------------------------------------------------------------

    @Override
    public OutputWriterFactory prepareWrite(SparkSession spark, Job job,
                                            scala.collection.immutable.Map<String, String> options,
                                            StructType dataSchema) {
        Map<String, Integer> at = new HashMap<>();
        for (int i = 0; i < dataSchema.fields().length; i++) {
            at.put(dataSchema.fields()[i].name(), i);
        }
        Integer record = at.get("record");
        if (record == null || !(dataSchema.fields()[record].dataType() instanceof
                                org.apache.spark.sql.types.BinaryType)) {
            throw new IllegalArgumentException("dmpmqmsg: writing needs a binary column "
                + "'record' (the message as read by format('dmpmqmsg')); the columns are "
                + String.join(", ", dataSchema.fieldNames()));
        }
        Integer strip = at.get("strip_dlh");
        if (strip != null && !(dataSchema.fields()[strip].dataType() instanceof
                               org.apache.spark.sql.types.BooleanType)) {
            throw new IllegalArgumentException("dmpmqmsg: column 'strip_dlh' must be boolean");
        }
        String[] mqdlh = {"md_format", "dlh_format", "dlh_encoding", "dlh_coded_char_set_id"};
        DataType[] types = {DataTypes.StringType, DataTypes.StringType, DataTypes.IntegerType,
                            DataTypes.IntegerType};
        int[] told = new int[mqdlh.length];  // the MQDLH as the reader decoded it, or null
        for (int i = 0; i < mqdlh.length && told != null; i++) {
            Integer c = at.get(mqdlh[i]);
            boolean typed = c != null && dataSchema.fields()[c].dataType().typeName()
                .equals(types[i].typeName());
            if (typed) {
                told[i] = c;
            } else {
                told = null;
            }
        }
        String header = options.getOrElse("header", () -> null);  // null: dmpmqmsg's
        String audit = options.getOrElse("audit", () -> null);
        int[] auditColumns = null;
        OutputWriterFactory parquet = null;
        StructType auditSchema = null;
        if (audit != null) {
            auditColumns = columns("audit", audit, at, dataSchema);
            auditSchema = new StructType();
            for (int c : auditColumns) {
                auditSchema = auditSchema.add(dataSchema.fields()[c]);
            }
            parquet = new org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat()
                .prepareWrite(spark, job, options, auditSchema);
        }
        String counted = options.getOrElse("counts", () -> null);
        int[] countColumns = null;
        if (counted != null) {
            countColumns = columns("counts", counted, at, dataSchema);
            new RowCounts(countColumns, dataSchema);  // its types checked before any task
        }
        String grouped = options.getOrElse("groups", () -> null);
        int[] groupColumns = null;
        if (grouped != null) {
            if (audit == null) {
                throw new IllegalArgumentException("dmpmqmsg: option groups needs option audit"
                    + " (a task's groups are written beside its audit)");
            }
            groupColumns = columns("groups", grouped, at, dataSchema);
            new GroupStates(groupColumns, dataSchema);  // its types checked before any task
        }
        return new Writers(record, strip == null ? -1 : strip, told, header, auditColumns,
                           auditSchema, parquet, countColumns, groupColumns);
    }

    /** The ordinals of an option's comma-separated column names among the written columns
     *  (at: name to ordinal); a name not among them is an error naming the option. */
    private static int[] columns(String option, String value, Map<String, Integer> at,
                                 StructType dataSchema) {
        String[] names = value.split(",");
        int[] ordinals = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            Integer c = at.get(names[i].trim());
            if (c == null) {
                throw new IllegalArgumentException("dmpmqmsg: option " + option
                    + " names column '" + names[i].trim() + "', not among "
                    + String.join(", ", dataSchema.fieldNames()));
            }
            ordinals[i] = c;
        }
        return ordinals;
    }

    private static final class Writers extends OutputWriterFactory {
        private static final long serialVersionUID = 1L;
        private final int record;
        private final int strip;
        private final int[] told;
        private final String header;
        private final int[] auditColumns;
        private final StructType auditSchema;
        private final OutputWriterFactory parquet;
        private final int[] countColumns;
        private final int[] groupColumns;

        Writers(int record, int strip, int[] told, String header, int[] auditColumns,
                StructType auditSchema, OutputWriterFactory parquet, int[] countColumns,
                int[] groupColumns) {
            this.told = told;
            this.countColumns = countColumns;
            this.groupColumns = groupColumns;
            this.record = record;
            this.strip = strip;
            this.header = header;
            this.auditColumns = auditColumns;
            this.auditSchema = auditSchema;
            this.parquet = parquet;
        }

        @Override
        public String getFileExtension(TaskAttemptContext context) {
            return ".dmp";
        }

        /** The audit writer each task attempt shares among its parts (see Audit). */
        private transient Map<String, Audit> audits;

        @Override
        public OutputWriter newInstance(String path, StructType dataSchema,
                                        TaskAttemptContext context) {
            Audit audit = null;
            if (parquet != null) {
                String task = context.getTaskAttemptID().toString();
                synchronized (this) {
                    if (audits == null) {
                        audits = new HashMap<>();
                    }
                    Audit shared = audits.get(task);
                    if (shared == null) {
                        String base = path.endsWith(".dmp")
                            ? path.substring(0, path.length() - 4) : path;
                        shared = new Audit(parquet.newInstance(base + ".audit"
                            + parquet.getFileExtension(context), auditSchema, context), () -> {
                                synchronized (this) {
                                    audits.remove(task);
                                }
                            }, groupColumns == null ? null
                                : new GroupStates(groupColumns, dataSchema),
                            base + GroupStates.SUFFIX, context.getConfiguration());
                        audits.put(task, shared);
                    }
                    shared.users++;
                    audit = shared;
                }
            }
            try {
                return new DumpRecordWriter(path, context.getConfiguration(), header, record,
                                            strip, told, audit, auditColumns, auditSchema,
                                            countColumns == null ? null
                                                : new RowCounts(countColumns, dataSchema),
                                            audit == null ? null : audit.groups);
            } catch (IOException e) {
                throw new DumpReadException("cannot create " + path + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * One Parquet audit file for the parts of a task attempt: Spark opens a writer per
     * directory (target x input file x split), and a file each would make many small
     * files (and as many Parquet writers' buffers) for a large backlog. The first part's
     * writer creates it in its directory (the task attempt's, so it is committed or
     * discarded with the parts); each part's close lets go of it and the last closes
     * it. Spark's writers of a task run on its one thread. With option "groups" it also
     * holds the task's GroupStates, written (to groupsPath) when the last part closes.
     */
    private static final class Audit extends OutputWriter {
        private final OutputWriter parquet;
        private final Runnable closed;
        final GroupStates groups;  // null: no option "groups"
        private final String groupsPath;
        private final Configuration conf;
        int users;

        Audit(OutputWriter parquet, Runnable closed, GroupStates groups, String groupsPath,
              Configuration conf) {
            this.parquet = parquet;
            this.closed = closed;
            this.groups = groups;
            this.groupsPath = groupsPath;
            this.conf = conf;
        }

        @Override
        public void write(InternalRow row) {
            parquet.write(row);
        }

        @Override
        public void close() {
            if (--users == 0) {
                closed.run();
                parquet.close();
                if (groups != null && !groups.isEmpty()) {
                    try {
                        groups.write(conf, groupsPath);
                    } catch (IOException e) {
                        throw new DumpReadException("cannot create " + groupsPath + ": "
                            + e.getMessage(), e);
                    }
                }
            }
        }

        @Override
        public String path() {
            return parquet.path();
        }
    }

    /** The schema's fields, for tests and the Python side. */
    public static String ddl() {
        StringBuilder s = new StringBuilder();
        for (StructField f : SCHEMA.fields()) {
            if (s.length() > 0) {
                s.append(", ");
            }
            s.append(f.name()).append(' ').append(f.dataType().simpleString());
        }
        return s.toString();
    }
}
