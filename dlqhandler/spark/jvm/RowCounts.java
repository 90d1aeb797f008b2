/*
 * The rows a part file's writer saw, counted by a few columns (the write's option
 * "counts"), written beside the part as JSON lines when it closes: one object per
 * combination of values, its columns by name and "count". The drain's summary is
 * these counts summed (dlqhandler/spark/drain/outputs.py), so it needs no second job over
 * the audit; the file is a task output like the part itself, so Spark's commit
 * protocol keeps exactly the counts of the attempts it commits.
 *
 * The columns are few and of low cardinality (dispositions, rule lines, targets,
 * reasons): the map stays small whatever the number of rows.
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
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

final class RowCounts {
    static final String SUFFIX = ".counts.json";

    private final int[] columns;
    private final String[] names;
    private final DataType[] types;
    private final Map<Key, long[]> counts = new HashMap<>();

    /** Count by {@code columns} of the written rows (their fields in {@code schema}). */
    RowCounts(int[] columns, StructType schema) {
        this.columns = columns;
        this.names = new String[columns.length];
        this.types = new DataType[columns.length];
        for (int i = 0; i < columns.length; i++) {
            names[i] = schema.fields()[columns[i]].name();
            types[i] = schema.fields()[columns[i]].dataType();
            if (!countable(types[i])) {
                throw new IllegalArgumentException("dmpmqmsg: option counts names column '"
                    + names[i] + "' of type " + types[i].simpleString() + "; only boolean, "
                    + "int, bigint, string and arrays of int can be counted by");
            }
        }
    }

    private static boolean countable(DataType t) {
        if (t instanceof ArrayType) {
            return ((ArrayType) t).elementType() instanceof IntegerType;
        }
        return t instanceof BooleanType || t instanceof IntegerType || t instanceof LongType
            || t instanceof StringType;
    }

    /** A combination of values. The probe's values are the row's own (Spark reuses
     *  the row it hands the writer); a key stored in the map has copies. */
    private static final class Key {
        final Object[] values;
        int hash;

        Key(Object[] values) {
            this.values = values;
            this.hash = Arrays.hashCode(values);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && Arrays.equals(values, ((Key) o).values);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private Key probe;  // the row in hand's values, looked up before anything is copied

    void add(InternalRow row) {
        if (probe == null) {
            probe = new Key(new Object[columns.length]);
        }
        Object[] values = probe.values;
        for (int i = 0; i < columns.length; i++) {
            int c = columns[i];
            if (row.isNullAt(c)) {
                values[i] = null;
                continue;
            }
            DataType t = types[i];
            if (t instanceof ArrayType) {
                values[i] = new IntList(row.getArray(c));
            } else if (t instanceof StringType) {
                values[i] = row.getUTF8String(c);
            } else if (t instanceof IntegerType) {
                values[i] = row.getInt(c);
            } else {
                values[i] = row.get(c, t);
            }
        }
        probe.hash = Arrays.hashCode(values);
        long[] n = counts.get(probe);
        if (n == null) {
            Object[] kept = values.clone();
            for (int i = 0; i < kept.length; i++) {
                if (kept[i] instanceof UTF8String) {
                    kept[i] = ((UTF8String) kept[i]).copy();
                }
            }
            n = new long[1];
            counts.put(new Key(kept), n);
        }
        n[0]++;
    }

    /** The ints of an array (null elements as null), comparable by content. */
    private static final class IntList {
        final Integer[] items;

        IntList(ArrayData a) {
            items = new Integer[a.numElements()];
            for (int i = 0; i < items.length; i++) {
                items[i] = a.isNullAt(i) ? null : a.getInt(i);
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof IntList && Arrays.equals(items, ((IntList) o).items);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(items);
        }
    }

    boolean isEmpty() {
        return counts.isEmpty();
    }

    /** The counts as JSON lines into a new file {@code path}. */
    void write(Configuration conf, String path) throws IOException {
        StringBuilder s = new StringBuilder();
        for (Map.Entry<Key, long[]> e : counts.entrySet()) {
            s.append('{');
            Object[] values = e.getKey().values;
            for (int i = 0; i < values.length; i++) {
                json(s, names[i]).append(':');
                value(s, values[i]).append(',');
            }
            s.append("\"count\":").append(e.getValue()[0]).append("}\n");
        }
        Path p = new Path(path);
        try (OutputStream out = p.getFileSystem(conf).create(p, false)) {
            out.write(s.toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    private static StringBuilder value(StringBuilder s, Object v) {
        if (v == null) {
            return s.append("null");
        }
        if (v instanceof UTF8String) {
            return json(s, v.toString());
        }
        if (v instanceof IntList) {
            s.append('[');
            Integer[] items = ((IntList) v).items;
            for (int i = 0; i < items.length; i++) {
                s.append(i > 0 ? "," : "").append(items[i] == null ? "null" : items[i]);
            }
            return s.append(']');
        }
        return s.append(v);  // Boolean, Integer, Long
    }

    /** A JSON string: quotes, backslashes and control characters escaped. */
    static StringBuilder json(StringBuilder s, String text) {
        s.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                s.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
                s.append(String.format("\\u%04x", (int) c));
            } else {
                s.append(c);
            }
        }
        return s.append('"');
    }
}
