/*
 * The message groups (and segmented messages) a task attempt wrote, each as the state a
 * whole-group check needs (the write's option "groups"): written when the task's last
 * part closes, as JSON lines beside its first part (part-....groups.json), committed with
 * the parts. The driver merges the lines of every task and keeps the groups that are not
 * whole or not all placed (dlqhandler/spark/drain/job.py), so the drain's group check
 * needs no second job over the audit.
 *
 * The option names six columns of the written rows: the group's id (string; null: the
 * row is in no group), its sequence number (int), and four booleans: the member is the
 * group's last, the member is a segment, the member is placed (moved by its rule), the
 * member is malformed. Per group: "p" all placed, "m" any malformed, "s" any segment,
 * "l" how many lasts, "x" the greatest last sequence number (null: none), "n" how many
 * sequence numbers, "q" the sequence numbers in arrival order. A group that is whole in
 * this task and all placed (no malformed member) is written without "q": its sequence
 * numbers are 1..n. A null boolean counts as false (as SQL's count_if and bool_or would
 * skip it); a null sequence number is not one.
 *
 * A task's rows arrive on its one thread, whichever part they are written to.
 */
package dlqhandler.spark;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

final class GroupStates {
    static final String SUFFIX = ".groups.json";
    private static final String[] ROLES = {"group id", "sequence number", "last", "segment",
                                           "placed", "malformed"};

    private final int id;
    private final int seq;
    private final int last;
    private final int segment;
    private final int placed;
    private final int malformed;
    private final Map<UTF8String, State> groups = new HashMap<>();

    /** Track the groups of the rows by {@code columns} (their fields in {@code schema}, in
     *  the order of ROLES); a column of the wrong type is an error naming it. */
    GroupStates(int[] columns, StructType schema) {
        if (columns.length != ROLES.length) {
            throw new IllegalArgumentException("dmpmqmsg: option groups names "
                + columns.length + " columns; it takes " + ROLES.length + ": "
                + String.join(", ", ROLES));
        }
        for (int i = 0; i < columns.length; i++) {
            DataType t = schema.fields()[columns[i]].dataType();
            boolean typed = i == 0 ? t instanceof StringType
                : i == 1 ? t instanceof IntegerType : t instanceof BooleanType;
            if (!typed) {
                throw new IllegalArgumentException("dmpmqmsg: option groups: the " + ROLES[i]
                    + " column '" + schema.fields()[columns[i]].name() + "' is of type "
                    + t.simpleString());
            }
        }
        this.id = columns[0];
        this.seq = columns[1];
        this.last = columns[2];
        this.segment = columns[3];
        this.placed = columns[4];
        this.malformed = columns[5];
    }

    private static final class State {
        boolean placed = true;
        boolean malformed;
        boolean segmented;
        int lasts;
        boolean hasLast;
        int last;
        int n;
        int[] seqs = new int[4];
    }

    private static boolean isTrue(InternalRow row, int c) {
        return !row.isNullAt(c) && row.getBoolean(c);
    }

    void add(InternalRow row) {
        if (row.isNullAt(id)) {
            return;
        }
        UTF8String g = row.getUTF8String(id);
        State s = groups.get(g);
        if (s == null) {
            s = new State();
            groups.put(g.copy(), s);
        }
        s.placed &= row.isNullAt(placed) || row.getBoolean(placed);  // SQL's bool_and skips null
        s.malformed |= isTrue(row, malformed);
        s.segmented |= isTrue(row, segment);
        boolean isLast = isTrue(row, last);
        if (row.isNullAt(seq)) {
            s.lasts += isLast ? 1 : 0;
            return;
        }
        int n = row.getInt(seq);
        if (isLast) {
            s.lasts++;
            s.last = s.hasLast ? Math.max(s.last, n) : n;
            s.hasLast = true;
        }
        if (s.n == s.seqs.length) {
            s.seqs = Arrays.copyOf(s.seqs, s.n * 2);
        }
        s.seqs[s.n++] = n;
    }

    /** Whether the state's members are a whole group here and all placed: one last, and
     *  the sequence numbers 1..last once each (or a segment among them: segments are not
     *  checked for gaps). */
    private static boolean settled(State s) {
        if (!s.placed || s.malformed) {
            return false;
        }
        if (s.segmented) {
            return true;
        }
        if (s.lasts != 1 || !s.hasLast || s.last != s.n) {
            return false;
        }
        int[] sorted = Arrays.copyOf(s.seqs, s.n);
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            if (sorted[i] != i + 1) {
                return false;
            }
        }
        return true;
    }

    boolean isEmpty() {
        return groups.isEmpty();
    }

    /** The states as JSON lines into a new file {@code path}. */
    void write(Configuration conf, String path) throws IOException {
        StringBuilder s = new StringBuilder();
        for (Map.Entry<UTF8String, State> e : groups.entrySet()) {
            State g = e.getValue();
            RowCounts.json(s.append("{\"g\":"), e.getKey().toString());
            s.append(",\"p\":").append(g.placed)
                .append(",\"m\":").append(g.malformed).append(",\"s\":").append(g.segmented)
                .append(",\"l\":").append(g.lasts).append(",\"x\":")
                .append(g.hasLast ? Integer.toString(g.last) : "null")
                .append(",\"n\":").append(g.n);
            if (!settled(g)) {
                s.append(",\"q\":[");
                for (int i = 0; i < g.n; i++) {
                    s.append(i > 0 ? "," : "").append(g.seqs[i]);
                }
                s.append(']');
            }
            s.append("}\n");
        }
        Path p = new Path(path);
        try (OutputStream out = p.getFileSystem(conf).create(p, false)) {
            out.write(s.toString().getBytes(StandardCharsets.UTF_8));
        }
    }
}
