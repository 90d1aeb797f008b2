/*
 * The message groups (and segmented messages) a task attempt wrote, each as the state a
 * whole-group check needs (the write's option "groups"): written when the task's last
 * part closes, as JSON lines beside its first part (part-....groups.json), committed with
 * the parts. The driver merges the lines of every task and keeps the groups that are not
 * whole or not all placed (dlqhandler/spark/drain/job.py, _split_from_states), so the
 * drain's group check needs no second job over the audit.
 *
 * The option names seven columns of the written rows: the unit's id (string; null: the
 * row is in no group nor segmented), its sequence number (int), and five booleans: the
 * member is flagged its group's last, is a segment, is in a group, is placed (moved by
 * its rule), is malformed. Per unit: "p" all placed, "m" any malformed, "s" any segment,
 * "r" any in a group, "k" how many members, "q" the distinct sequence numbers, sorted,
 * "l" the distinct numbers flagged last, sorted. A unit whole in this task and all placed
 * (no malformed member) is written with "n", how many distinct numbers, instead of "q"
 * and "l": its numbers are 1..n, and n the last when in a group. Whole: each number once
 * (or a segment among them: segments share their logical message's number, and their
 * gaps are the driver's to check), and in a group one last number n and the numbers
 * 1..n; outside a group the number 1 alone. A null boolean counts as false (as SQL's
 * bool_or skips it; a null "placed" as true, as bool_and skips it); a null sequence
 * number is no number.
 *
 * The lines are sorted by id (UTF8String's byte order: the driver's hex ids compare alike
 * as Python strings), so the driver merges the tasks' files as sorted streams, holding one
 * group at a time. A task's rows arrive on its one thread, whichever part they are
 * written to.
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
                                           "grouped", "placed", "malformed"};

    private final int id;
    private final int seq;
    private final int last;
    private final int segment;
    private final int grouped;
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
        this.grouped = columns[4];
        this.placed = columns[5];
        this.malformed = columns[6];
    }

    private static final class State {
        boolean placed = true;
        boolean malformed;
        boolean segmented;
        boolean grouped;
        int members;
        int n;
        int[] seqs = new int[4];
        int lastCount;
        int[] lasts = new int[1];
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
        s.members++;
        s.placed &= row.isNullAt(placed) || row.getBoolean(placed);  // SQL's bool_and skips null
        s.malformed |= isTrue(row, malformed);
        s.segmented |= isTrue(row, segment);
        s.grouped |= isTrue(row, grouped);
        if (row.isNullAt(seq)) {
            return;
        }
        int n = row.getInt(seq);
        if (isTrue(row, last)) {
            if (s.lastCount == s.lasts.length) {
                s.lasts = Arrays.copyOf(s.lasts, s.lastCount * 2);
            }
            s.lasts[s.lastCount++] = n;
        }
        if (s.n == s.seqs.length) {
            s.seqs = Arrays.copyOf(s.seqs, s.n * 2);
        }
        s.seqs[s.n++] = n;
    }

    /** The distinct values among the first {@code n} of {@code values}, sorted. */
    private static int[] distinct(int[] values, int n) {
        int[] sorted = Arrays.copyOf(values, n);
        Arrays.sort(sorted);
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (k == 0 || sorted[k - 1] != sorted[i]) {
                sorted[k++] = sorted[i];
            }
        }
        return Arrays.copyOf(sorted, k);
    }

    /** Whether a unit with these distinct {@code seqs} and {@code lasts} is whole here
     *  and all placed (see the file's comment). */
    private static boolean settled(State s, int[] seqs, int[] lasts) {
        if (!s.placed || s.malformed || !(s.segmented || s.members == seqs.length)) {
            return false;
        }
        if (!s.grouped) {
            return seqs.length == 1 && seqs[0] == 1;
        }
        if (lasts.length != 1 || lasts[0] != seqs.length) {
            return false;
        }
        for (int i = 0; i < seqs.length; i++) {
            if (seqs[i] != i + 1) {
                return false;
            }
        }
        return true;
    }

    private static void numbers(StringBuilder s, int[] values) {
        s.append('[');
        for (int i = 0; i < values.length; i++) {
            s.append(i > 0 ? "," : "").append(values[i]);
        }
        s.append(']');
    }

    boolean isEmpty() {
        return groups.isEmpty();
    }

    /** The states as JSON lines into a new file {@code path}. */
    void write(Configuration conf, String path) throws IOException {
        StringBuilder s = new StringBuilder();
        // sorted by id, so the driver merges the tasks' files as sorted streams
        java.util.List<Map.Entry<UTF8String, State>> sorted = new java.util.ArrayList<>(
            groups.entrySet());
        sorted.sort(Map.Entry.comparingByKey());
        for (Map.Entry<UTF8String, State> e : sorted) {
            State g = e.getValue();
            int[] seqs = distinct(g.seqs, g.n);
            int[] lasts = distinct(g.lasts, g.lastCount);
            RowCounts.json(s.append("{\"g\":"), e.getKey().toString());
            s.append(",\"p\":").append(g.placed).append(",\"m\":").append(g.malformed)
                .append(",\"s\":").append(g.segmented).append(",\"r\":").append(g.grouped)
                .append(",\"k\":").append(g.members);
            if (settled(g, seqs, lasts)) {
                s.append(",\"n\":").append(seqs.length);
            } else {
                numbers(s.append(",\"q\":"), seqs);
                numbers(s.append(",\"l\":"), lasts);
            }
            s.append("}\n");
        }
        Path p = new Path(path);
        try (OutputStream out = p.getFileSystem(conf).create(p, false)) {
            out.write(s.toString().getBytes(StandardCharsets.UTF_8));
        }
    }
}
