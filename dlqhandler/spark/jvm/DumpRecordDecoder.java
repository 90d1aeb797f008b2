/*
 * The drain's decoder of the common dmpmqmsg record, in the JVM (a Spark Java UDF).
 *
 * One call takes one record (the text between blank lines, see dlqhandler/spark/extract.py)
 * and returns its message as a struct, or null when the record is not the common case,
 * which then takes the Python reader (dlqhandler/spark/rare.py), the reference. The common
 * case, and every rule below, is the one dlqhandler/spark/decode.py states for its column
 * expressions (that module is the fallback when this class is not on the classpath):
 *
 *  - the 28 A lines of a version-2 MQMD in the writer's order, "A VER 2"; integers
 *    -?[0-9]{1,9}; character values printable ASCII, at most their field's length,
 *    trailing blanks removed; hex values full width (AIX/AOX: ISO-8859-1 text cut at NUL);
 *  - then only X lines: "X " and an even number of hex digits;
 *  - a version-1 MQDLH at the start of the data in encoding 1 (big-endian) or 2
 *    (little-endian), its text printable once cut at NUL; CodedCharSetId -2
 *    (MQCCSI_INHERIT) becomes the data's CCSID (0 = 819). The data's CCSID (the MQMD's)
 *    is ASCII-compatible, or one of the Latin EBCDIC code pages (z/OS senders), whose
 *    text is then taken only when every byte is in EBCDIC's invariant character set
 *    (letters, digits, blank and + < = > % & * " ' ( ) , _ - . / : ; ?), which all
 *    those code pages, and so the Python codecs, map alike.
 *
 * The struct's fields are the md_* columns, body, then the dlh_* columns, in the order of
 * dlqhandler.spark.extract.MESSAGE_SCHEMA (the Python side builds the same DDL).
 * Nothing here throws on bad input: anything unexpected is "not common".
 */
package dlqhandler.spark;

import java.nio.charset.StandardCharsets;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;

public final class DumpRecordDecoder implements UDF1<String, Row> {
    private static final long serialVersionUID = 1L;

    private static final int LONG = 0, CHAR = 1, BYTE = 2, CHAR_AS_HEX = 3;
    // code, kind, length: the A lines of a version-2 MQMD, in the writer's order.
    private static final String[] CODES = {
        "VER", "RPT", "MST", "EXP", "FDB", "ENC", "CCS", "FMT", "PRI", "PER", "MSI", "COI",
        "BOC", "RTQ", "RTM", "USR", "ACC", "AIX", "PAT", "PAN", "PTD", "PTT", "AOX", "GRP",
        "MSQ", "OFF", "MSF", "ORL"};
    private static final int[] KINDS = {
        LONG, LONG, LONG, LONG, LONG, LONG, LONG, CHAR, LONG, LONG, BYTE, BYTE,
        LONG, CHAR, CHAR, CHAR, BYTE, CHAR_AS_HEX, LONG, CHAR, CHAR, CHAR, CHAR_AS_HEX, BYTE,
        LONG, LONG, LONG, LONG};
    private static final int[] LENGTHS = {
        4, 4, 4, 4, 4, 4, 4, 8, 4, 4, 24, 24,
        4, 48, 48, 12, 32, 32, 4, 28, 8, 8, 4, 24,
        4, 4, 4, 4};
    private static final int N = CODES.length;
    private static final int ENC = 5, CCS = 6;
    private static final int[] ASCII_CCSIDS = {
        0, 367, 437, 819, 850, 852, 858, 912, 923, 1208, 1250, 1251, 1252, 5348};
    private static final int[] EBCDIC_CCSIDS = {
        37, 273, 277, 278, 280, 284, 285, 297, 500, 1047, 1140, 1141, 1148};
    private static final char[] EBCDIC = new char[256];  // invariant set; 0 = not in it
    private static final int DLH_LENGTH = 172;
    private static final byte[] HEX = new byte[128];

    static {
        String[][] ranges = {{"40", " "}, {"4B", ".<(+"}, {"50", "&"}, {"5C", "*);"},
            {"60", "-/"}, {"6B", ",%_>?"}, {"7A", ":"}, {"7D", "'=\""},
            {"81", "abcdefghi"}, {"91", "jklmnopqr"}, {"A2", "stuvwxyz"},
            {"C1", "ABCDEFGHI"}, {"D1", "JKLMNOPQR"}, {"E2", "STUVWXYZ"},
            {"F0", "0123456789"}};
        for (String[] r : ranges) {
            int at = Integer.parseInt(r[0], 16);
            for (int i = 0; i < r[1].length(); i++) {
                EBCDIC[at + i] = r[1].charAt(i);
            }
        }
        java.util.Arrays.fill(HEX, (byte) -1);
        for (int i = 0; i < 10; i++) {
            HEX['0' + i] = (byte) i;
        }
        for (int i = 0; i < 6; i++) {
            HEX['A' + i] = (byte) (10 + i);
            HEX['a' + i] = (byte) (10 + i);
        }
    }

    @Override
    public Row call(String record) {
        if (record == null) {
            return null;
        }
        try {
            return decode(record);
        } catch (RuntimeException e) {
            return null;  // not common: the Python reader names the problem
        }
    }

    static Row decode(String s) {
        Object[] out = new Object[N + 1 + 10];
        int pos = 0;
        int len = s.length();
        for (int i = 0; i < N; i++) {
            int end = s.indexOf('\n', pos);
            if (end < 0) {
                return null;  // an X line must follow
            }
            String code = CODES[i];
            if (end - pos < 6 || s.charAt(pos) != 'A' || s.charAt(pos + 1) != ' '
                    || s.charAt(pos + 5) != ' ' || !s.startsWith(code, pos + 2)) {
                return null;
            }
            int start = pos + 6;
            Object value;
            switch (KINDS[i]) {
                case LONG:
                    value = parseLong(s, start, end);
                    break;
                case CHAR:
                    value = parseChar(s, start, end, LENGTHS[i]);
                    break;
                case BYTE:
                    value = parseHex(s, start, end, LENGTHS[i]);
                    break;
                default:
                    byte[] raw = parseHex(s, start, end, LENGTHS[i]);
                    value = raw == null ? null : text(raw, 0, raw.length);
                    break;
            }
            if (value == null) {
                return null;
            }
            out[i] = value;
            pos = end + 1;
        }
        if ((Integer) out[0] != 2) {
            return null;
        }
        byte[] body = parseX(s, pos, len);
        if (body == null) {
            return null;
        }
        out[N] = body;
        int mdEncoding = (Integer) out[ENC];
        int mdCcsid = (Integer) out[CCS];
        int enc = mdEncoding & 15;
        if (enc != 1 && enc != 2) {
            return null;
        }
        boolean big = enc == 1;
        boolean ebcdic = member(EBCDIC_CCSIDS, mdCcsid);
        if (!ebcdic && !member(ASCII_CCSIDS, mdCcsid)) {
            return null;
        }
        byte[] strucId = ebcdic ? new byte[] {(byte) 0xC4, (byte) 0xD3, (byte) 0xC8, 0x40}
                                : new byte[] {'D', 'L', 'H', ' '};
        if (body.length < DLH_LENGTH || body[0] != strucId[0] || body[1] != strucId[1]
                || body[2] != strucId[2] || body[3] != strucId[3]
                || mqlong(body, 4, big) != 1) {
            return null;
        }
        int k = N + 1;
        out[k++] = mqlong(body, 8, big);  // reason
        String destQ = dlhText(body, 12, 48, ebcdic);
        String destQm = dlhText(body, 60, 48, ebcdic);
        int encoding = mqlong(body, 108, big);
        int ccsid = mqlong(body, 112, big);
        String format = dlhText(body, 116, 8, ebcdic);
        int putApplType = mqlong(body, 124, big);
        String putApplName = dlhText(body, 128, 28, ebcdic);
        String putDate = dlhText(body, 156, 8, ebcdic);
        String putTime = dlhText(body, 164, 8, ebcdic);
        if (destQ == null || destQm == null || format == null || putApplName == null
                || putDate == null || putTime == null) {
            return null;
        }
        if (ccsid == -2) {
            ccsid = mdCcsid == 0 ? 819 : mdCcsid;
        }
        out[k++] = destQ;
        out[k++] = destQm;
        out[k++] = encoding;
        out[k++] = ccsid;
        out[k++] = format;
        out[k++] = putApplType;
        out[k++] = putApplName;
        out[k++] = putDate;
        out[k] = putTime;
        return RowFactory.create(out);
    }

    private static boolean member(int[] set, int ccsid) {
        for (int c : set) {
            if (c == ccsid) {
                return true;
            }
        }
        return false;
    }

    /** -?[0-9]{1,9}, or null. */
    private static Integer parseLong(String s, int start, int end) {
        int i = start;
        boolean negative = i < end && s.charAt(i) == '-';
        if (negative) {
            i++;
        }
        int digits = end - i;
        if (digits < 1 || digits > 9) {
            return null;
        }
        int v = 0;
        for (; i < end; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            v = v * 10 + (c - '0');
        }
        return negative ? -v : v;
    }

    /** Printable ASCII, at most ``length`` characters, trailing blanks removed; or null. */
    private static String parseChar(String s, int start, int end, int length) {
        if (end - start > length) {
            return null;
        }
        int last = start;
        for (int i = start; i < end; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                return null;
            }
            if (c != ' ') {
                last = i + 1;
            }
        }
        return s.substring(start, last);
    }

    /** Exactly ``length`` bytes of hex, or null. */
    private static byte[] parseHex(String s, int start, int end, int length) {
        if (end - start != 2 * length) {
            return null;
        }
        byte[] out = new byte[length];
        return hexInto(s, start, end, out, 0) < 0 ? null : out;
    }

    /** Hex digits s[start, end) into out at ``at``; the new end, or -1. */
    private static int hexInto(String s, int start, int end, byte[] out, int at) {
        for (int i = start; i < end; i += 2) {
            char hi = s.charAt(i);
            char lo = s.charAt(i + 1);
            if (hi >= 128 || lo >= 128) {
                return -1;
            }
            int h = HEX[hi];
            int l = HEX[lo];
            if (h < 0 || l < 0) {
                return -1;
            }
            out[at++] = (byte) ((h << 4) | l);
        }
        return at;
    }

    /** The X lines from ``pos`` to the end: one or more, each "X " + even hex; or null. */
    private static byte[] parseX(String s, int pos, int len) {
        if (pos >= len) {
            return null;
        }
        // At most (len - pos) / 2 bytes: size once, trim once.
        byte[] buf = new byte[(len - pos) / 2];
        int n = 0;
        while (true) {
            int end = s.indexOf('\n', pos);
            if (end < 0) {
                end = len;
            }
            if (end - pos < 2 || s.charAt(pos) != 'X' || s.charAt(pos + 1) != ' '
                    || ((end - pos) & 1) != 0) {
                return null;
            }
            n = hexInto(s, pos + 2, end, buf, n);
            if (n < 0) {
                return null;
            }
            if (end == len) {
                break;
            }
            pos = end + 1;
            if (pos >= len) {
                return null;  // a record does not end with a line end
            }
        }
        return n == buf.length ? buf : java.util.Arrays.copyOf(buf, n);
    }

    private static int mqlong(byte[] b, int off, boolean big) {
        int b0 = b[off] & 0xFF, b1 = b[off + 1] & 0xFF, b2 = b[off + 2] & 0xFF,
            b3 = b[off + 3] & 0xFF;
        return big ? (b0 << 24) | (b1 << 16) | (b2 << 8) | b3
                   : (b3 << 24) | (b2 << 16) | (b1 << 8) | b0;
    }

    /** ISO-8859-1 text of b[off, off + n), cut at the first NUL, trailing blanks removed. */
    private static String text(byte[] b, int off, int n) {
        int end = off;
        while (end < off + n && b[end] != 0) {
            end++;
        }
        int last = off;
        for (int i = off; i < end; i++) {
            if (b[i] != ' ') {
                last = i + 1;
            }
        }
        return new String(b, off, last - off, StandardCharsets.ISO_8859_1);
    }

    /** An MQDLH text field: cut at NUL, printable ASCII (or EBCDIC's invariant set),
     *  trailing blanks removed; or null. */
    private static String dlhText(byte[] b, int off, int n, boolean ebcdic) {
        int end = off;
        while (end < off + n && b[end] != 0) {
            end++;
        }
        if (!ebcdic) {
            for (int i = off; i < end; i++) {
                if (b[i] < 0x20 || b[i] > 0x7E) {
                    return null;
                }
            }
            return text(b, off, end - off);
        }
        char[] chars = new char[end - off];
        int last = 0;
        for (int i = off; i < end; i++) {
            char c = EBCDIC[b[i] & 0xFF];
            if (c == 0) {
                return null;
            }
            chars[i - off] = c;
            if (c != ' ') {
                last = i - off + 1;
            }
        }
        return new String(chars, 0, last);
    }
}
