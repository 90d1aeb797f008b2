/*
 * One dmpmqmsg message record decoded in the JVM, as the Python reader decodes it
 * (dlqhandler/formats/dump_reader.py for the MQMD and the data,
 * dlqhandler/mq/message.py decode_dead_letter(...) for the MQDLH, also
 * behind an MQRFH2 in front of it, which Rfh2.java reads): the same values, the same
 * problems with the same words. The tables (A codes, MQMD defaults, MQDLH layout, code
 * pages) are generated from the Python side into DumpTables.java.
 *
 * A record is the bytes of one message in the file: its first A or N line up to the
 * next message's first line (so the blank line and any comment lines after it too).
 * decode() never throws on bad input: a problem is the result's error and errorLine
 * (the 0-based line of the problem within the record).
 */
package dlqhandler.spark;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

final class DumpMessage {
    Object[] md;          // MQMD values in DumpTables.MD_FIELDS order (Integer, String, byte[])
    byte[] body;          // the message data, or its first bytes (see decode's keep)
    int bodyLength;       // the whole data's length (body.length unless cut at keep)
    String error;         // null when the record decoded
    int errorLine;        // 0-based line within the record

    private static final int[] ATTR_INDEX = new int[1 << 15];  // code letters -> index + 1
    private static final byte[][] CODE_BYTES = new byte[DumpTables.CODES.length][];

    static {
        for (int i = 0; i < DumpTables.CODES.length; i++) {
            CODE_BYTES[i] = DumpTables.CODES[i].getBytes(StandardCharsets.US_ASCII);
            ATTR_INDEX[key(CODE_BYTES[i], 0)] = i + 1;
        }
    }

    private static int key(byte[] b, int at) {
        return ((b[at] & 31) << 10) | ((b[at + 1] & 31) << 5) | (b[at + 2] & 31);
    }

    private static final class LineError extends Exception {
        private static final long serialVersionUID = 1L;

        LineError(String detail) {
            super(detail, null, false, false);
        }
    }

    /** Decode buf[off, off + len). */
    static DumpMessage decode(byte[] buf, int off, int len) {
        return decode(buf, off, len, Integer.MAX_VALUE);
    }

    /**
     * Decode buf[off, off + len), keeping only the first {@code keep} bytes of the
     * message data in {@link #body} ({@link #bodyLength} is the whole length): every
     * data line is still checked, so a record is malformed exactly as with the whole
     * data, but a query of header columns does not store (nor copy) bodies it never
     * reads.
     */
    static DumpMessage decode(byte[] buf, int off, int len, int keep) {
        return decode(buf, off, len, keep, null);
    }

    /** Whether a decode storing {@code fields} (null: all) stores MQMD field {@code field}
     *  (an index into DumpTables.MD_FIELDS): Encoding, CodedCharSetId and Format (5, 6, 7)
     *  always, as the MQDLH is decoded in them and found behind that Format. */
    private static boolean stores(boolean[] fields, int field) {
        return fields == null || fields[field] || field == 5 || field == 6 || field == 7;
    }

    /**
     * {@link #decode(byte[], int, int, int)} storing only the MQMD fields {@code fields}
     * marks (null: all) and the three {@link #stores} always stores; the other fields keep
     * their defaults in {@link #md}. Every attribute line is still checked, so a record is malformed exactly
     * as when all are stored: a query stores (and allocates) only the fields it selects.
     */
    static DumpMessage decode(byte[] buf, int off, int len, int keep, boolean[] fields) {
        DumpMessage m = new DumpMessage();
        Object[] values = DumpTables.mdDefaults();
        ByteSink data = new ByteSink(Math.max(16, Math.min(keep, len / 2)));
        data.limit = keep;
        int end = off + len;
        int pos = off;
        int line = 0;
        boolean inData = false;
        boolean first = true;
        try {
            while (pos < end) {
                int nl = pos;
                int hexEnd = -1;  // an X line: where its hex digits end (one scan for both)
                if (buf[pos] == 'X') {
                    int k = pos + 1;
                    while (k < end && buf[k] == ' ') {
                        k++;
                    }
                    while (k < end && HEX_VALUE[buf[k] & 0xFF] >= 0) {
                        k++;
                    }
                    hexEnd = nl = k;
                }
                nl = find(buf, nl, end, (byte) '\n');
                if (nl < 0) {
                    nl = end;
                }
                int next = nl < end ? nl + 1 : end;
                int stop = nl;
                if (stop > pos && buf[stop - 1] == '\r') {
                    stop--;
                }
                int n = stop - pos;
                if (n > 0) {
                    byte c = buf[pos];
                    if (first) {
                        first = false;  // the record's first line is its A or N line
                        if (c == 'A') {
                            applyAttribute(values, buf, pos, n, fields);
                        }
                    } else if (c == 'A' && !inData) {
                        applyAttribute(values, buf, pos, n, fields);
                    } else if (c == 'X' || c == 'S' || c == 'T') {
                        dataLine(data, buf, pos, n, c, hexEnd);
                        inData = true;
                    } else if (c == '*') {
                        // a comment, anywhere; one holding a CR is CR-only line ends
                        for (int k = pos; k < stop; k++) {
                            if (buf[k] == '\r') {
                                throw new LineError(DumpSplitReader.CR_ONLY);
                            }
                        }
                    } else if (!inData) {
                        throw new LineError("expected an 'A' attribute or an 'X', 'S' or 'T' data "
                            + "line, found " + (c == 'N' ? "an 'N' line" : show(buf, pos, n, 24)));
                    } else {
                        throw new LineError("expected a message ('A' or 'N' line), found "
                            + show(buf, pos, n, 24));
                    }
                }
                pos = next;
                if (pos < end) {
                    line++;
                }
            }
            if (!inData) {
                throw new LineError("expected an 'X', 'S' or 'T' data line, found end of file");
            }
        } catch (LineError e) {
            m.error = e.getMessage();
            m.errorLine = line;
            return m;
        }
        m.md = values;
        m.body = data.toArray();
        m.bodyLength = data.total;
        return m;
    }

    // --- A lines -------------------------------------------------------------------

    private static void applyAttribute(Object[] values, byte[] b, int at, int n,
                                       boolean[] fields) throws LineError {
        int index = n >= 5 ? ATTR_INDEX[key(b, at + 2)] - 1 : -1;
        if (index >= 0) {
            byte[] code = CODE_BYTES[index];
            if (b[at + 2] != code[0] || b[at + 3] != code[1] || b[at + 4] != code[2]) {
                index = -1;
            }
        }
        if (index < 0 || n < 5 || b[at + 1] != ' ' || (n > 5 && b[at + 5] != ' ')) {
            throw new LineError(attributeProblem(b, at, n));
        }
        if (n < 7) {
            return;  // no value: the field keeps its default, as in dmpmqmsg
        }
        int field = DumpTables.FIELD[index];
        boolean store = stores(fields, field);
        int length = DumpTables.LENGTH[index];
        int v = at + 6;
        int vn = n - 6;
        switch (DumpTables.KIND[index]) {
            case DumpTables.LONG: {
                long number = parseLong(b, v, vn, index);
                if (field == 0 && number != 1 && number != 2) {
                    throw new LineError("A VER: MQMD version must be 1 or 2, found " + number);
                }
                if (store) {
                    values[field] = (int) number;
                }
                break;
            }
            case DumpTables.CHAR: {
                int nul = indexOf(b, v, vn, (byte) 0);
                if (vn > length) {
                    for (int i = v + length; i < v + vn; i++) {
                        if (b[i] != ' ') {
                            throw new LineError("A " + DumpTables.CODES[index] + ": value is "
                                + "longer than the " + length + "-byte field: "
                                + show(b, v, vn, 60));
                        }
                    }
                }
                if (store) {
                    // as read (cut at a NUL), trailing blanks removed: one string made
                    int e = nul >= 0 ? nul : v + Math.min(vn, length);
                    while (e > v && b[e - 1] == ' ') {
                        e--;
                    }
                    values[field] = latin1(b, v, e - v);
                }
                break;
            }
            case DumpTables.BYTE:
                byte[] bytes = hexField(b, v, vn, store ? (byte[]) values[field] : null, length,
                                        index);
                if (store) {
                    values[field] = bytes;
                }
                break;
            default: {  // an MQCHARn spelt in hex (AIX, AOX)
                if (!store) {
                    hexField(b, v, vn, null, length, index);
                    break;
                }
                byte[] current = Arrays.copyOf(
                    ((String) values[field]).getBytes(StandardCharsets.ISO_8859_1), length);
                for (int i = ((String) values[field]).length(); i < length; i++) {
                    current[i] = ' ';
                }
                byte[] raw = hexField(b, v, vn, current, length, index);
                values[field] = text(raw, 0, raw.length);
                break;
            }
        }
    }

    private static String attributeProblem(byte[] b, int at, int n) {
        if (n < 5) {
            return "attribute line too short: expected 'A <code> <value>', found "
                + show(b, at, n, 24);
        }
        if (b[at + 1] != ' ' || (n > 5 && b[at + 5] != ' ')) {
            return "expected 'A <code> <value>' with blanks in columns 2 and 6, found "
                + show(b, at, n, 24);
        }
        String[] sorted = DumpTables.CODES.clone();
        Arrays.sort(sorted);
        return "unrecognised attribute code " + pyRepr(latin1(b, at + 2, 3))
            + ": expected one of " + String.join(", ", sorted);
    }

    /** Python's " *([+-]?[0-9]{1,10}) *" as a signed 32-bit integer. */
    private static long parseLong(byte[] b, int v, int vn, int index) throws LineError {
        int i = v;
        int end = v + vn;
        while (i < end && b[i] == ' ') {
            i++;
        }
        int e = end;
        while (e > i && b[e - 1] == ' ') {
            e--;
        }
        boolean negative = false;
        int d = i;
        if (d < e && (b[d] == '+' || b[d] == '-')) {
            negative = b[d] == '-';
            d++;
        }
        int digits = e - d;
        boolean ok = digits >= 1 && digits <= 10;
        long value = 0;
        for (int k = d; ok && k < e; k++) {
            if (b[k] < '0' || b[k] > '9') {
                ok = false;
            } else {
                value = value * 10 + (b[k] - '0');
            }
        }
        if (negative) {
            value = -value;
        }
        if (!ok || value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new LineError("A " + DumpTables.CODES[index] + ": expected a signed 32-bit "
                + "decimal integer, found "
                + show(b, v, vn, 24));
        }
        return value;
    }

    /** An A line's hex value of a {@code length}-byte field over {@code current} (the
     *  field's value so far, which a shorter value overwrites from its start); with
     *  {@code current} null the value is only checked. */
    private static byte[] hexField(byte[] b, int v, int vn, byte[] current, int length,
                                   int index) throws LineError {
        int digits = 0;
        while (digits < vn && HEX_VALUE[b[v + digits] & 0xFF] >= 0) {
            digits++;
        }
        if (digits == vn && vn == 2 * length) {
            return current == null ? null : unhex(b, v, vn);
        }
        int junk = v + digits;
        while (junk < v + vn && b[junk] == ' ') {
            junk++;
        }
        String problem = "";
        if (junk < v + vn) {
            int column = 7 + junk - v;
            problem = "unexpected character " + pyRepr(latin1(b, junk, 1)) + " in column " + column;
        } else if (digits > 2 * length) {
            problem = digits / 2 + " bytes, more than the " + length + "-byte field";
        } else if (digits % 2 != 0) {
            problem = "an odd number of hex digits (" + digits + ")";
        }
        if (!problem.isEmpty()) {
            throw new LineError("A " + DumpTables.CODES[index] + ": badly formed hex value: "
                + problem);
        }
        if (current == null) {
            return null;
        }
        byte[] data = unhex(b, v, digits);
        byte[] out = current.clone();
        System.arraycopy(data, 0, out, 0, data.length);
        return out;
    }

    // --- data lines ----------------------------------------------------------------

    /** One data line (its first character c) into data; an X line's hex digits end at
     *  hexEnd (found by the caller's scan for the line's end). */
    private static void dataLine(ByteSink data, byte[] b, int at, int n, byte c, int hexEnd)
            throws LineError {
        if (c == 'T') {
            if (n > 2) {
                data.write(b, at + 2, n - 2);
            }
            data.write('\n');
            return;
        }
        int i = at + 1;
        int end = at + n;
        while (i < end && b[i] == ' ') {
            i++;
        }
        if (c == 'S') {
            sLine(data, b, i, end);
            return;
        }
        int digits = Math.min(hexEnd, end) - i;
        int col = i + digits;  // the first character that is not hex
        if (col < end && b[col] != ' ') {
            throw new LineError("badly formed hex data: non-hex character "
                + pyRepr(latin1(b, col, 1)) + " in column " + (col - at + 1));
        }
        if (digits % 2 != 0) {
            throw new LineError("badly formed hex data: odd number of hex digits (" + digits
                + ")");
        }
        int bytes = digits / 2;
        int stored = Math.min(bytes, data.room());
        data.ensure(stored);
        for (int k = i; k < i + 2 * stored; k += 2) {
            data.buf[data.size++] =
                (byte) ((HEX_VALUE[b[k] & 0xFF] << 4) | HEX_VALUE[b[k + 1] & 0xFF]);
        }
        data.total += bytes;
    }

    private static void sLine(ByteSink data, byte[] b, int i, int end) throws LineError {
        if (i >= end || b[i] != '"') {
            int e = end;
            while (e > i && b[e - 1] == ' ') {
                e--;
            }
            data.write(b, i, e - i);
            return;
        }
        i++;
        while (i < end) {
            byte c = b[i];
            if (c == '~') {
                if (i + 1 >= end || (b[i + 1] != '"' && b[i + 1] != '~')) {
                    String found = i + 1 < end ? pyRepr(latin1(b, i + 1, 1)) : "end of line";
                    throw new LineError("unexpected escape sequence in S line: '~' must be "
                        + "followed by '\"' or '~', found " + found);
                }
                data.write(b[i + 1]);
                i += 2;
            } else if (c == '"') {
                return;
            } else {
                data.write(c);
                i++;
            }
        }
        throw new LineError("unterminated S line: no closing '\"'");
    }

    // --- the MQDLH -----------------------------------------------------------------

    /** MQDLH values (reason, dest_q_name, dest_q_mgr_name, encoding, coded_char_set_id,
     *  format, put_appl_type, put_appl_name, put_date, put_time) or its problem; the
     *  bytes of MQRFH2 in front of it; the property folders around it. */
    static final class Dlh {
        Object[] values;
        String error;
        int inFront;                 // bytes of the MQRFH2 in front of the MQDLH (0: none)
        Rfh2 front;                  // that MQRFH2 (null: none)
        String[] folders;            // property folders carried (null: not asked, no MQDLH)
        int depth;                   // MQDLHs chained from this one ({@link #chained}; 0:
                                     // not asked, no MQDLH)
    }

    private static final String IN_FRONT = "MQMD Format is 'MQHRF2'";

    /**
     * This message's MQDLH ({@link #decodeDlh}); when this decode kept only the first
     * bytes of the data and the MQDLH needs the whole of it ({@link #needsWhole}), the
     * record (the bytes this message was decoded from) is decoded again, whole.
     */
    Dlh dlh(byte[] record, boolean folders) {
        return dlh(record, folders, false);
    }

    /**
     * {@link #dlh(byte[], boolean)}, with {@code hops} also its {@link Dlh#depth}: when the
     * chain of MQDLHs runs past the bytes this decode kept, the record is decoded again,
     * whole.
     */
    Dlh dlh(byte[] record, boolean folders, boolean hops) {
        boolean cut = body.length < bodyLength;
        if (cut && needsWhole(md, null, folders)) {
            return decode(record, 0, record.length).dlh(record, folders, hops);
        }
        Dlh d = decodeDlh(md, body, bodyLength, folders);
        if (cut && needsWhole(md, d, folders)) {
            return decode(record, 0, record.length).dlh(record, folders, hops);
        }
        if (hops && d.error == null) {
            d.depth = chained(d, body, bodyLength);
            if (d.depth < 0) {  // cut: the chain goes on past the kept bytes
                return decode(record, 0, record.length).dlh(record, folders, hops);
            }
        }
        return d;
    }

    /** The most MQDLHs {@link #chained} counts (dlqhandler.rules.outgoing.header_depth's
     *  limit). */
    static final int MAX_DEPTH = 64;

    /**
     * How many MQDLHs are chained from the (valid) first one, {@code d}, as
     * dlqhandler.rules.outgoing.header_depth counts them on the message a get returns
     * (the MQDLH first): each MQDLH whose Format is MQDEAD is followed by another one,
     * decoded in its Encoding and CodedCharSetId (0: 819), until one is not valid or
     * {@link #MAX_DEPTH} are counted. -1 when {@code body} holds only the first bytes
     * of data {@code length} bytes long and ends before the chain does.
     */
    static int chained(Dlh d, byte[] body, int length) {
        int depth = 1;
        int at = d.inFront;
        Object[] v = d.values;
        while ("MQDEAD".equals(v[5]) && depth < MAX_DEPTH) {
            at += DumpTables.DLH_LENGTH;
            Dlh next = new Dlh();
            int ccsid = (Integer) v[4];
            if (dlhError((Integer) v[3], ccsid == 0 ? 819 : ccsid, body, body.length, at, next)
                    != null) {
                // a short MQDLH ends the chain, unless the kept bytes end before the data
                boolean short_ = body.length - at < DumpTables.DLH_LENGTH;
                return short_ && body.length < length ? -1 : depth;
            }
            depth++;
            v = next.values;
        }
        return depth;
    }

    /** The bytes of message data an MQDLH at its start needs (decode's keep). */
    static final int DLH_PREFIX = 512;

    /**
     * Whether decoding the MQDLH of this message needs its whole data, not only
     * {@link #DLH_PREFIX} bytes: an MQRFH2 in front of the MQDLH (MQMD Format MQHRF2), or,
     * with {@code folders}, one behind it (the MQDLH's Format MQHRF2).
     */
    static boolean needsWhole(Object[] md, Dlh dlh, boolean folders) {
        return "MQHRF2".equals(md[7])
            || (folders && dlh != null && dlh.error == null && "MQHRF2".equals(dlh.values[5]));
    }

    /**
     * The MQDLH of a message, as dlqhandler.mq.message.decode_dead_letter(md, body)
     * finds it: at the start of the data, or, when the MQMD's Format is
     * MQHRF2, behind the MQRFH2 there (whose Format is MQDEAD and whose folders are all
     * message properties), decoded in that header's Encoding and CodedCharSetId. With
     * {@code folders}, also the names of the property folders holding properties in the
     * MQRFH2 in front and in one right behind the MQDLH (its Format MQHRF2; a damaged
     * one there adds none: it is the message's data, not its header).
     */
    static Dlh decodeDlh(Object[] md, byte[] body, boolean folders) {
        return decodeDlh(md, body, body.length, folders);
    }

    /**
     * {@link #decodeDlh(Object[], byte[], boolean)} of data {@code length} bytes long of
     * which {@code body} may hold only the first: enough for an MQDLH at the start of
     * the data. An MQRFH2 in front of it ({@link #needsWhole}) needs the whole data.
     */
    static Dlh decodeDlh(Object[] md, byte[] body, int length, boolean folders) {
        Dlh d = new Dlh();
        int encoding = (Integer) md[5];
        int ccsid = (Integer) md[6] == 0 ? 819 : (Integer) md[6];
        if ("MQHRF2".equals(md[7])) {
            d.error = behindRfh2(encoding, (Integer) md[6], ccsid, body, d);
        } else {
            String error = dlhError(encoding, ccsid, body, length, 0, d);
            if (error != null && !"MQDEAD".equals(md[7])) {
                error = "MQMD Format is " + pyRepr((String) md[7]) + ", not 'MQDEAD'; " + error;
            }
            d.error = error;
        }
        if (d.error != null) {
            d.values = null;
            d.inFront = 0;
            d.front = null;
        } else if (folders) {
            java.util.SortedSet<String> names = new java.util.TreeSet<>();
            if (d.front != null) {
                d.front.propertyFolders(names);
            }
            if ("MQHRF2".equals(d.values[5])) {
                try {
                    Rfh2.decode(body, d.inFront + DumpTables.DLH_LENGTH, body.length,
                                (Integer) d.values[3], (Integer) d.values[4])
                        .propertyFolders(names);
                } catch (Rfh2.Problem e) {
                    // the data behind the MQDLH: `decode` shows it as properties_error
                }
            }
            d.folders = names.toArray(new String[0]);
        }
        return d;
    }

    /** message.py _behind_rfh2: the MQDLH behind the MQRFH2 at the start of body. */
    private static String behindRfh2(int encoding, int mdCcsid, int ccsid, byte[] body, Dlh d) {
        Rfh2 h;
        try {
            h = Rfh2.decode(body, 0, body.length, encoding, ccsid);
        } catch (Rfh2.Problem e) {
            return IN_FRONT + "; " + e.getMessage() + " (at byte " + e.offset + " of the data)";
        }
        if (!"MQDEAD".equals(h.format)) {
            return IN_FRONT + ", and the MQRFH2's Format is " + pyRepr(h.format)
                + ", not 'MQDEAD': no MQDLH behind it";
        }
        for (int i = 0; i < h.folders.size(); i++) {
            if (!h.holdsProperties.get(i)) {
                return IN_FRONT + ": the MQRFH2 in front of the MQDLH holds folder "
                    + pyRepr(h.folders.get(i)) + ", which is not message properties (only mcd, "
                    + "jms, usr, mq, mqext, mq_usr, mqps are)";
            }
        }
        int inner = h.ccsid == -2 ? mdCcsid : h.ccsid;
        String error = dlhError(h.encoding, inner == 0 ? 819 : inner, body, body.length, h.end,
                                d);
        if (error != null) {
            return IN_FRONT + "; behind the MQRFH2 (StrucLength " + h.end + "), " + error;
        }
        d.inFront = h.end;
        d.front = h;
        return null;
    }

    private static String dlhError(int encoding, int ccsid, byte[] body, int whole, int start,
                                   Dlh d) {
        int length = whole - start;
        if (length < DumpTables.DLH_LENGTH) {
            return "message data is " + length + " bytes, shorter than an MQDLH ("
                + DumpTables.DLH_LENGTH + ")";
        }
        boolean big;
        int part = encoding & 0xF;
        int s = start;
        if (part == 1) {
            big = true;
        } else if (part == 2) {
            big = false;
        } else if (body[s + 4] == 0 && body[s + 5] == 0 && body[s + 6] == 0
                   && (body[s + 7] == 1 || body[s + 7] == 2)) {
            big = true;
        } else if (body[s + 5] == 0 && body[s + 6] == 0 && body[s + 7] == 0
                   && (body[s + 4] == 1 || body[s + 4] == 2)) {
            big = false;
        } else {
            return "MQDLH not decodable: encoding " + encoding + " has no integer byte order";
        }
        int fields = DumpTables.DLH_NAMES.length;
        Object[] all = new Object[fields];
        for (int i = 0; i < fields; i++) {
            int at = DumpTables.DLH_OFFSET[i];
            all[i] = mqlong(body, s + at, big);
        }
        for (int i = 0; i < fields; i++) {
            int n = DumpTables.DLH_CHAR_LENGTH[i];
            if (n == 0) {
                continue;
            }
            try {
                all[i] = decodeText(body, s + DumpTables.DLH_OFFSET[i], n, ccsid);
            } catch (CharacterCodingException e) {
                return "MQDLH not decodable: MQDLH." + DumpTables.DLH_IBM[i] + ": "
                    + e.getMessage();
            }
        }
        if (!"DLH".equals(all[0])) {
            return "data does not start with an MQDLH (StrucId is " + bytesRepr(body, s, 4)
                + ", expected 'DLH ' in CCSID " + ccsid + ")";
        }
        int version = (Integer) all[1];
        if (version != 1) {
            return "MQDLH Version " + version + " is not 1";
        }
        if ((Integer) all[6] == -2) {
            all[6] = ccsid;
        }
        d.values = Arrays.copyOfRange(all, 2, fields);
        return null;
    }

    static int mqlong(byte[] b, int off, boolean big) {
        int b0 = b[off] & 0xFF, b1 = b[off + 1] & 0xFF, b2 = b[off + 2] & 0xFF,
            b3 = b[off + 3] & 0xFF;
        return big ? (b0 << 24) | (b1 << 16) | (b2 << 8) | b3
                   : (b3 << 24) | (b2 << 16) | (b1 << 8) | b0;
    }

    /** An MQCHARn in a CCSID: cut at the first NUL, decoded, trailing blanks removed
     *  (dlqhandler.mq.ccsid.decode_text). The exception's message is Python's words. */
    static String decodeText(byte[] b, int off, int n, int ccsid)
            throws CharacterCodingException {
        int end = off;
        while (end < off + n && b[end] != 0) {
            end++;
        }
        int page = Arrays.binarySearch(DumpTables.SINGLE_BYTE_CCSIDS, ccsid);
        if (page >= 0) {
            String table = DumpTables.PAGES[page];
            char[] chars = new char[end - off];
            for (int i = off; i < end; i++) {
                char c = table.charAt(b[i] & 0xFF);
                if (c == '\uffff') {
                    throw new Problem("text not valid in CCSID " + ccsid + ": "
                        + DumpTables.REASONS[page]);
                }
                chars[i - off] = c;
            }
            return rstrip(new String(chars));
        }
        if (ccsid == 1208 || ccsid == 1200 || ccsid == 1202 || ccsid == 13488
                || ccsid == 17584) {  // CPython's decoders' rules and reasons
            try {
                return rstrip(ccsid == 1208 ? Rfh2.Text.utf8(b, off, end - off)
                    : Rfh2.Text.utf16(b, off, end - off, ccsid != 1202));
            } catch (Rfh2.Invalid e) {
                throw new Problem("text not valid in CCSID " + ccsid + ": " + e.reason);
            }
        }
        int multi = -1;
        for (int i = 0; i < DumpTables.MULTI_BYTE_CCSIDS.length; i++) {
            if (DumpTables.MULTI_BYTE_CCSIDS[i] == ccsid) {
                multi = i;
            }
        }
        if (multi < 0) {
            throw new Problem("unsupported CCSID " + ccsid);
        }
        try {
            return rstrip(Charset.forName(DumpTables.MULTI_BYTE_CHARSETS[multi]).newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(b, off, end - off)).toString());
        } catch (CharacterCodingException e) {
            throw new Problem("text not valid in CCSID " + ccsid + ": " + e);
        }
    }

    static final class Problem extends CharacterCodingException {
        private static final long serialVersionUID = 1L;
        private final String text;

        Problem(String text) {
            this.text = text;
        }

        @Override
        public String getMessage() {
            return text;
        }
    }

    // --- helpers -------------------------------------------------------------------

    private static final byte[] HEX_VALUE = new byte[256];  // a byte's hex digit value, or -1

    static {
        for (int i = 0; i < 256; i++) {
            HEX_VALUE[i] = (byte) hexValue((byte) i);
        }
    }

    static int hexValue(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return -1;
    }

    private static byte[] unhex(byte[] b, int at, int digits) {
        byte[] out = new byte[digits / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) ((hexValue(b[at + 2 * i]) << 4) | hexValue(b[at + 2 * i + 1]));
        }
        return out;
    }

    private static int indexOf(byte[] b, int at, int n, byte x) {
        return find(b, at, at + n, x);
    }

    private static final java.lang.invoke.VarHandle LONGS =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class,
                                                              java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    /**
     * The first index in b[from, to) of byte x, or -1: eight bytes at a time (the bytes
     * equal to x are the zero bytes of the word XOR x repeated, and the lowest byte the
     * classic has-zero test flags is the first zero byte; the ones above it may be false
     * hits, so only the lowest is taken). Lines and fields of a dump are scanned with it.
     */
    static int find(byte[] b, int from, int to, byte x) {
        long pattern = (x & 0xFFL) * ONES;
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long w = (long) LONGS.get(b, i) ^ pattern;
            long hit = (w - ONES) & ~w & HIGHS;
            if (hit != 0) {
                return i + (Long.numberOfTrailingZeros(hit) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (b[i] == x) {
                return i;
            }
        }
        return -1;
    }

    static String latin1(byte[] b, int at, int n) {
        return new String(b, at, n, StandardCharsets.ISO_8859_1);
    }

    static String rstrip(String s) {
        int e = s.length();
        while (e > 0 && s.charAt(e - 1) == ' ') {
            e--;
        }
        return s.substring(0, e);
    }

    /** File bytes as MQCHAR text (ISO-8859-1): cut at NUL, trailing blanks removed. */
    private static String text(byte[] b, int at, int n) {
        int nul = indexOf(b, at, n, (byte) 0);
        return rstrip(latin1(b, at, nul < 0 ? n : nul - at));
    }

    /** Python's _show: repr of the first ``limit`` characters, "..." when longer. */
    static String show(byte[] b, int at, int n, int limit) {
        String text = latin1(b, at, Math.min(n, limit));
        return pyRepr(n > limit ? text + "..." : text);
    }

    /** Python's repr() of a str of ISO-8859-1 characters. */
    static String pyRepr(String s) {
        return quoted(s, false);
    }

    /** Python's repr() of bytes. */
    static String bytesRepr(byte[] b, int at, int n) {
        return quoted(latin1(b, at, n), true);
    }

    /**
     * Python's quoting of a str, or with {@code bytes} of bytes (one char a byte): b, the
     * quote, escapes for the quote, backslash, \n, \r, \t and the characters it does not
     * print as they are (a str: C0, DEL to NBSP, the soft hyphen; bytes: all but ASCII 32-126).
     */
    private static String quoted(String text, boolean bytes) {
        char quote = text.indexOf('\'') >= 0 && text.indexOf('"') < 0 ? '"' : '\'';
        StringBuilder out = new StringBuilder(text.length() + 3).append(bytes ? "b" : "")
            .append(quote);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == quote || c == '\\') {
                out.append('\\').append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c < 0x20 || (bytes ? c >= 0x7F : (c >= 0x7F && c <= 0xA0) || c == 0xAD)) {
                out.append(String.format("\\x%02x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append(quote).toString();
    }

    /** A growable byte array that keeps at most {@code limit} bytes of what it is given
     *  ({@code total} counts them all). */
    static final class ByteSink {
        byte[] buf;
        int size;
        int limit = Integer.MAX_VALUE;
        int total;

        ByteSink(int capacity) {
            buf = new byte[capacity];
        }

        int room() {
            return limit - size;
        }

        void ensure(int more) {
            if (size + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
            }
        }

        void write(int b) {
            total++;
            if (size < limit) {
                ensure(1);
                buf[size++] = (byte) b;
            }
        }

        void write(byte[] b, int at, int n) {
            total += n;
            int kept = Math.min(n, room());
            ensure(kept);
            System.arraycopy(b, at, buf, size, kept);
            size += kept;
        }

        byte[] toArray() {
            return size == buf.length ? buf : Arrays.copyOf(buf, size);
        }
    }
}
