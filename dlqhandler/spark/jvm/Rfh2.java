/*
 * An MQRFH2 (rules and formatting header 2) read in the JVM as dlqhandler/mq/rfh2.py
 * decode_rfh2 reads it: the 36-byte fixed part (integers in the encoding of the
 * structure before it, text in its CCSID), then NameValueLength + NameValueData folders
 * in NameValueCCSID, each folder's XML read by a port of rfh2.py's small reader (the same
 * syntax: elements, the dt and xsi:nil attributes, XML's five entities and character
 * references; IBM's dt types and their value rules). The same problems are refused with
 * the same words and byte offsets, so a damaged header is reported alike on both paths
 * (tests/spark/test_datasource_properties.py compares them).
 *
 * What the data source needs of a header is kept: its fields, where it ends, and per
 * folder its name and how many properties it holds; values are checked, not kept.
 */
package dlqhandler.spark;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

final class Rfh2 {
    static final int FIXED = 36;
    static final String[] PROPERTY_FOLDERS = {"jms", "mcd", "mq", "mq_usr", "mqext", "mqps",
                                              "usr"};

    boolean big;          // the byte order of its integers
    int encoding;         // of what follows
    int ccsid;            // of what follows (-2: inherit)
    String format;        // of what follows
    int end;              // offset just after the header
    final List<String> folders = new ArrayList<>();    // folder names, in order
    final List<Integer> counts = new ArrayList<>();    // properties in each folder
    // Whether IBM reads each folder as message properties: one of PROPERTY_FOLDERS without
    // attributes, or any folder marked content='properties' (Python's is_property_folder).
    final List<Boolean> holdsProperties = new ArrayList<>();

    /** A header that is not one: Python's DecodeError text and offset. */
    static final class Problem extends Exception {
        private static final long serialVersionUID = 1L;
        final int offset;

        Problem(String message, int offset) {
            super(message, null, false, false);
            this.offset = offset;
        }
    }

    /** Decode the MQRFH2 at raw[start, limit); encoding and ccsid of the structure
     *  before it. */
    static Rfh2 decode(byte[] raw, int start, int limit, int encoding, int ccsid)
            throws Problem {
        String at = "MQRFH2 at offset " + (start) + ": ";
        int have = limit - start;
        if (have < FIXED) {
            throw new Problem(at + "truncated: " + Math.max(0, have)
                + " bytes, the fixed part is 36", limit);
        }
        int cs = ccsid == 0 ? 819 : ccsid;
        Rfh2 h = new Rfh2();
        int part = encoding & 0xF;
        if (part == 1) {
            h.big = true;
        } else if (part == 2) {
            h.big = false;
        } else if (raw[start + 4] == 0 && raw[start + 5] == 0 && raw[start + 6] == 0
                   && (raw[start + 7] == 1 || raw[start + 7] == 2)) {
            h.big = true;
        } else if (raw[start + 5] == 0 && raw[start + 6] == 0 && raw[start + 7] == 0
                   && (raw[start + 4] == 1 || raw[start + 4] == 2)) {
            h.big = false;
        } else {
            throw new Problem(at + "encoding " + encoding + " has no integer byte order", 0);
        }
        String strucId;
        try {
            strucId = DumpMessage.decodeText(raw, start, 4, cs);
        } catch (CharacterCodingException e) {
            throw new Problem(at + "MQRFH2.StrucId: " + e.getMessage(), start);
        }
        try {
            h.format = DumpMessage.decodeText(raw, start + 20, 8, cs);
        } catch (CharacterCodingException e) {
            throw new Problem(at + "MQRFH2.Format: " + e.getMessage(), start + 20);
        }
        int version = DumpMessage.mqlong(raw, start + 4, h.big);
        int length = DumpMessage.mqlong(raw, start + 8, h.big);
        h.encoding = DumpMessage.mqlong(raw, start + 12, h.big);
        h.ccsid = DumpMessage.mqlong(raw, start + 16, h.big);
        int nvCcsid = DumpMessage.mqlong(raw, start + 32, h.big);
        if (!"RFH".equals(strucId)) {
            throw new Problem(at + "StrucId is " + DumpMessage.bytesRepr(raw, start, 4)
                + ", not 'RFH '", start);
        }
        if (version != 2) {
            throw new Problem(at + "Version is " + version + ", not 2", start + 4);
        }
        if (length < FIXED || length % 4 != 0 || (long) start + length > limit) {
            throw new Problem(at + "bad StrucLength " + length + " (at least 36, a multiple of "
                + "4, and at most the " + have + " bytes there are)", start + 8);
        }
        int end = start + length;
        h.end = end;
        Text text = Text.of(nvCcsid, h.big);
        if (text == null) {
            throw new Problem(at + "NameValueCCSID " + nvCcsid + ": unsupported CCSID "
                + nvCcsid, start + 32);
        }
        int pos = start + FIXED;
        while (pos < end) {
            if (end - pos < 4) {
                throw new Problem(at + (end - pos) + " bytes left at offset " + pos
                    + ", too few for a NameValueLength", pos);
            }
            int size = DumpMessage.mqlong(raw, pos, h.big);
            if (size < 0 || (long) pos + 4 + size > end) {
                throw new Problem(at + "NameValueLength " + size + " at offset " + pos
                    + " runs past the end of the header (StrucLength " + length + ")", pos);
            }
            pos += 4;
            String folder = text.decode(raw, pos, size, at, nvCcsid);
            new Reader(folder, at + "folder at offset " + pos + ": ", pos, text).folder(h);
            pos += size;
        }
        return h;
    }

    /** The names of the folders holding properties that are message properties (sorted,
     *  each once), added to {@code into}. */
    void propertyFolders(java.util.SortedSet<String> into) {
        for (int i = 0; i < folders.size(); i++) {
            if (counts.get(i) > 0 && Arrays.binarySearch(PROPERTY_FOLDERS, folders.get(i)) >= 0) {
                into.add(folders.get(i));
            }
        }
    }

    // --- NameValueData text ----------------------------------------------------------

    /** Bytes a CPython decoder rejects: its reason and the byte it names. */
    static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;
        final String reason;
        final int at;

        Invalid(String reason, int at) {
            super(reason, null, false, false);
            this.reason = reason;
            this.at = at;
        }
    }

    /** How NameValueData is decoded: a single-byte page, UTF-8 or UTF-16 (CPython's
     *  decoders' rules and reasons), or another Java charset. */
    static final class Text {
        final int kind;  // 0 page, 1 UTF-8, 2 UTF-16BE, 3 UTF-16LE, 4 charset
        final String page;
        final String reason;
        final Charset charset;

        private Text(int kind, String page, String reason, Charset charset) {
            this.kind = kind;
            this.page = page;
            this.reason = reason;
            this.charset = charset;
        }

        static Text of(int ccsid, boolean big) {
            if (ccsid == 1200 || ccsid == 13488 || ccsid == 17584) {
                return new Text(big ? 2 : 3, null, null, null);
            }
            int cs = ccsid == 0 ? 819 : ccsid;
            int page = Arrays.binarySearch(DumpTables.SINGLE_BYTE_CCSIDS, cs);
            if (page >= 0) {
                return new Text(0, DumpTables.PAGES[page], DumpTables.REASONS[page], null);
            }
            if (cs == 1208) {
                return new Text(1, null, null, null);
            }
            if (cs == 1202) {
                return new Text(3, null, null, null);
            }
            for (int i = 0; i < DumpTables.MULTI_BYTE_CCSIDS.length; i++) {
                if (DumpTables.MULTI_BYTE_CCSIDS[i] == cs) {
                    return new Text(4, null, null,
                        Charset.forName(DumpTables.MULTI_BYTE_CHARSETS[i]));
                }
            }
            return null;
        }

        String decode(byte[] b, int off, int n, String at, int ccsid) throws Problem {
            switch (kind) {
                case 0: {
                    char[] out = new char[n];
                    for (int i = 0; i < n; i++) {
                        char c = page.charAt(b[off + i] & 0xFF);
                        if (c == '\uffff') {
                            throw bad(at, ccsid, reason, off + i);
                        }
                        out[i] = c;
                    }
                    return new String(out);
                }
                case 1:
                case 2:
                case 3:
                    try {
                        return kind == 1 ? utf8(b, off, n) : utf16(b, off, n, kind == 2);
                    } catch (Invalid e) {
                        throw bad(at, ccsid, e.reason, e.at);
                    }
                default:
                    try {
                        return charset.newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(b, off, n)).toString();
                    } catch (CharacterCodingException e) {
                        throw bad(at, ccsid, e.toString(), off);
                    }
            }
        }

        /** The bytes of s in this text's encoding: how far into the data a character is. */
        int byteLength(String s) {
            switch (kind) {
                case 0:
                    return s.length();
                case 1:
                    return s.getBytes(StandardCharsets.UTF_8).length;
                case 2:
                case 3:
                    return 2 * s.length();
                default:
                    return s.getBytes(charset).length;
            }
        }

        private static Problem bad(String at, int ccsid, String reason, int offset) {
            return new Problem(at + "NameValueData not valid in CCSID " + ccsid + ": " + reason,
                               offset);
        }

        /** CPython's strict UTF-8 decoder: its reasons, at the byte it names. */
        static String utf8(byte[] b, int off, int n) throws Invalid {
            int ascii = off;
            while (ascii < off + n && b[ascii] >= 0) {
                ascii++;
            }
            if (ascii == off + n) {  // all ASCII (MQ names are): the bytes are the text
                return new String(b, off, n, StandardCharsets.ISO_8859_1);
            }
            StringBuilder out = new StringBuilder(n);
            int i = off;
            int end = off + n;
            while (i < end) {
                int c = b[i] & 0xFF;
                if (c < 0x80) {
                    out.append((char) c);
                    i++;
                    continue;
                }
                int need;
                int lo = 0x80;
                int hi = 0xBF;
                if (c >= 0xC2 && c <= 0xDF) {
                    need = 1;
                } else if (c >= 0xE0 && c <= 0xEF) {
                    need = 2;
                    lo = c == 0xE0 ? 0xA0 : 0x80;
                    hi = c == 0xED ? 0x9F : 0xBF;
                } else if (c >= 0xF0 && c <= 0xF4) {
                    need = 3;
                    lo = c == 0xF0 ? 0x90 : 0x80;
                    hi = c == 0xF4 ? 0x8F : 0xBF;
                } else {
                    throw new Invalid("invalid start byte", i);
                }
                int cp = c & (need == 1 ? 0x1F : need == 2 ? 0x0F : 0x07);
                for (int k = 1; k <= need; k++) {
                    if (i + k >= end) {
                        throw new Invalid("unexpected end of data", i);
                    }
                    int x = b[i + k] & 0xFF;
                    if (k == 1 ? (x < lo || x > hi) : (x < 0x80 || x > 0xBF)) {
                        throw new Invalid("invalid continuation byte", i);
                    }
                    cp = (cp << 6) | (x & 0x3F);
                }
                out.appendCodePoint(cp);
                i += need + 1;
            }
            return out.toString();
        }

        /** CPython's strict UTF-16 decoder (no BOM handling: utf_16_be/_le). */
        static String utf16(byte[] b, int off, int n, boolean big) throws Invalid {
            StringBuilder out = new StringBuilder(n / 2);
            int i = off;
            int end = off + n;
            while (i + 1 < end) {
                char u = unit(b, i, big);
                if (!Character.isSurrogate(u)) {
                    out.append(u);
                    i += 2;
                    continue;
                }
                if (Character.isLowSurrogate(u)) {
                    throw new Invalid("illegal encoding", i);
                }
                if (i + 3 >= end) {
                    throw new Invalid("unexpected end of data", i);
                }
                char v = unit(b, i + 2, big);
                if (!Character.isLowSurrogate(v)) {
                    throw new Invalid("illegal UTF-16 surrogate", i);
                }
                out.append(u).append(v);
                i += 4;
            }
            if (i < end) {
                throw new Invalid("truncated data", i);
            }
            return out.toString();
        }

        private static char unit(byte[] b, int i, boolean big) {
            int x = b[i] & 0xFF;
            int y = b[i + 1] & 0xFF;
            return (char) (big ? (x << 8) | y : (y << 8) | x);
        }
    }

    // --- one folder's XML (rfh2.py _Reader, _parse_folder, _children, _property) -------

    private static final String WS = " \\t\\n\\u000b\\f\\r\\u001c-\\u001f\\u0085\\u00a0"
        + "\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";  // Python's \s
    private static final String NAME_CHARS = "[^" + WS + "<>/=&\"'!?]+";

    /** Whether c is in WS (Python's \s), by hand: a name is read for every tag, and a
     *  regex matcher for each was a tenth of the reader's time in a report's profile. */
    static boolean isWs(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\u001c' && c <= '\u001f')
            || c == '\u0085' || c == '\u00a0' || c == '\u1680'
            || (c >= '\u2000' && c <= '\u200a') || c == '\u2028' || c == '\u2029'
            || c == '\u202f' || c == '\u205f' || c == '\u3000';
    }

    /** Whether c may be in a name: NAME_CHARS, one character at a time. */
    static boolean isNameChar(char c) {
        return !isWs(c) && "<>/=&\"'!?".indexOf(c) < 0;
    }

    private static final Pattern ATTR = Pattern.compile("[" + WS + "]+(" + NAME_CHARS + ")["
        + WS + "]*=[" + WS + "]*(?:\"([^\"<]*)\"|'([^'<]*)')");
    private static final Pattern ENTITY = Pattern.compile(
        "&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));");
    private static final Pattern INT = Pattern.compile("[+-]?[0-9]+");
    private static final Pattern HEX = Pattern.compile("[0-9A-Fa-f]*");
    private static final Pattern FLOAT = Pattern.compile(
        "[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?|NaN|nan|[+-]?(?:Infinity|inf)");
    private static final Map<String, Integer> INT_BITS = new HashMap<>();
    private static final Map<String, String> NAMED = new HashMap<>();

    static {
        NAMED.put("lt", "<");
        NAMED.put("gt", ">");
        NAMED.put("amp", "&");
        NAMED.put("quot", "\"");
        NAMED.put("apos", "'");
        INT_BITS.put("i1", 8);
        INT_BITS.put("i2", 16);
        INT_BITS.put("i4", 32);
        INT_BITS.put("i8", 64);
        INT_BITS.put("int", 64);
    }

    private static final class Reader {
        final String text;
        final String where;
        final int base;
        final Text codec;
        int pos;
        int properties;

        Reader(String text, String where, int base, Text codec) {
            this.text = text;
            this.where = where;
            this.base = base;
            this.codec = codec;
        }

        Problem error(String why, int at) {
            int offset = at < 0 ? base + codec.byteLength(text.substring(0, Math.max(0,
                text.length() + at))) : base + codec.byteLength(text.substring(0,
                Math.min(at, text.length())));
            return new Problem(where + why, offset);
        }

        Problem error(String why) {
            return error(why, pos);
        }

        void skipWs() {
            while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
                pos++;
            }
        }

        void expect(String literal) throws Problem {
            if (!text.startsWith(literal, pos)) {
                throw error("expected " + repr(literal));
            }
            pos += literal.length();
        }

        String name() throws Problem {
            int end = pos;
            while (end < text.length() && isNameChar(text.charAt(end))) {
                end++;
            }
            if (end == pos) {
                throw error("expected a name");
            }
            String found = text.substring(pos, end);
            pos = end;
            return found;
        }

        /** (name, attributes, empty) of a start tag. */
        Object[] startTag() throws Problem {
            expect("<");
            String tag = name();
            Map<String, String> attrs = new HashMap<>();
            // an attribute starts with white space: without it, no matcher to make
            Matcher m = pos < text.length() && isWs(text.charAt(pos)) ? ATTR.matcher(text) : null;
            while (m != null) {
                m.region(pos, text.length());
                if (!m.lookingAt()) {
                    break;
                }
                String value = m.group(2) != null ? m.group(2) : m.group(3);
                attrs.put(m.group(1), unescape(value, m.start(2)));
                pos = m.end();
            }
            skipWs();
            if (text.startsWith("/>", pos)) {
                pos += 2;
                return new Object[] {tag, attrs, true};
            }
            expect(">");
            return new Object[] {tag, attrs, false};
        }

        void endTag(String tag) throws Problem {
            int at = pos;
            expect("</");
            if (!name().equals(tag)) {
                throw error("end tag does not close <" + tag + ">", at);
            }
            skipWs();
            expect(">");
        }

        String unescape(String s, int at) throws Problem {
            if (s.indexOf('&') < 0) {
                return s;
            }
            Matcher m = ENTITY.matcher(s);
            StringBuilder out = new StringBuilder();
            StringBuilder rest = new StringBuilder();  // s without its entities
            while (m.find()) {
                String ch;
                if (m.group(1) != null) {
                    ch = NAMED.get(m.group(1));
                } else {
                    long code = m.group(2) != null ? Long.parseLong(m.group(2))
                        : Long.parseLong(m.group(3), 16);
                    if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
                        throw error("character reference " + m.group() + " is no character",
                                    at + m.start());
                    }
                    ch = new String(Character.toChars((int) code));
                }
                m.appendReplacement(out, Matcher.quoteReplacement(ch));
            }
            m.appendTail(out);
            rest.append(ENTITY.matcher(s).replaceAll(""));
            if (rest.indexOf("&") >= 0) {
                throw error("'&' that is not one of XML's five entities or a character "
                    + "reference", at + s.indexOf('&'));
            }
            return out.toString();
        }

        void folder(Rfh2 h) throws Problem {
            skipWs();
            if (strip(text.substring(pos), " \u0000").isEmpty()) {
                return;
            }
            Object[] start = startTag();
            String tag = (String) start[0];
            @SuppressWarnings("unchecked")
            Map<String, String> attrs = (Map<String, String>) start[1];
            if (!(Boolean) start[2]) {
                children(tag, "");
            }
            if (!strip(text.substring(pos), " \u0000\t\r\n").isEmpty()) {
                throw error("only blanks may follow the folder's end tag");
            }
            h.folders.add(tag);
            h.counts.add(properties);
            h.holdsProperties.add(attrs.isEmpty()
                ? Arrays.binarySearch(PROPERTY_FOLDERS, tag) >= 0
                : attrs.size() == 1 && "properties".equals(attrs.get("content")));
        }

        @SuppressWarnings("unchecked")
        void children(String parent, String prefix) throws Problem {
            while (true) {
                skipWs();
                if (text.startsWith("</", pos)) {
                    endTag(parent);
                    return;
                }
                if (!text.startsWith("<", pos)) {
                    throw error("text inside <" + parent + ">, which holds elements");
                }
                int at = pos;
                Object[] start = startTag();
                String tag = (String) start[0];
                Map<String, String> attrs = (Map<String, String>) start[1];
                String name = prefix + tag;
                if ((Boolean) start[2]) {
                    property(name, attrs, "", at);
                    continue;
                }
                int valueAt = pos;
                int lt = text.indexOf('<', pos);
                if (lt < 0) {
                    throw error("<" + tag + "> is not closed");
                }
                if (text.startsWith("</", lt) || !strip(text.substring(pos, lt), " \t\r\n")
                        .isEmpty()) {
                    String value = unescape(text.substring(pos, lt), pos);
                    pos = lt;
                    endTag(tag);
                    property(name, attrs, value, valueAt);
                } else {
                    if (attrs.containsKey("dt") || attrs.containsKey("xsi:nil")) {
                        throw error("<" + tag + "> has a type but holds elements", at);
                    }
                    children(tag, name + ".");
                }
            }
        }

        void property(String name, Map<String, String> attrs, String value, int at)
                throws Problem {
            String nil = attrs.get("xsi:nil");
            if (nil != null) {
                if (!nil.equals("true")) {
                    throw error(name + ": xsi:nil='" + nil + "' (only 'true' is allowed)", at);
                }
                if (!value.isEmpty()) {
                    throw error(name + ": a null property with a value", at);
                }
                properties++;
                return;
            }
            String dt = attrs.getOrDefault("dt", "string");
            String problem = dt.equals("null") ? "unknown property type dt='null'"
                : typedProblem(dt, value);
            if (problem != null) {
                throw error(name + ": " + problem, at);
            }
            properties++;
        }
    }

    /** rfh2.py typed_property's ValueError text for a value of type dt, or null. */
    static String typedProblem(String dt, String text) {
        boolean known = dt.equals("boolean") || dt.equals("bin.hex") || dt.equals("r4")
            || dt.equals("r8") || dt.equals("string") || INT_BITS.containsKey(dt);
        if (!known) {
            return "unknown property type dt='" + prefix(dt, 32) + "'";
        }
        if (dt.equals("string")) {
            return null;
        }
        String v = strip(text, " \t\r\n");
        String bad = repr(prefix(v, 40)) + " is not a valid dt='" + dt + "' value";
        String range = repr(prefix(v, 40)) + " is out of the range of dt='" + dt + "' (";
        switch (dt) {
            case "boolean": {
                String lowered = v.toLowerCase(Locale.ROOT);
                return lowered.equals("0") || lowered.equals("1") || lowered.equals("true")
                    || lowered.equals("false") ? null : bad;
            }
            case "bin.hex":
                return v.length() % 2 == 0 && HEX.matcher(v).matches() ? null : bad;
            case "r4":
            case "r8": {
                if (!FLOAT.matcher(v).matches()) {
                    return bad;
                }
                if (!v.contains("N") && !v.contains("n")) {  // a number, not a word
                    // beyond the type's range: refused, never infinity (rfh2.py)
                    double d = Double.parseDouble(v);
                    if (Double.isInfinite(d) || dt.equals("r4") && Float.isInfinite((float) d)) {
                        return range + (dt.equals("r4")
                            ? "a 32-bit float: at most 3.4028235e38 either side of 0)"
                            : "a 64-bit float: at most 1.7976931348623157e308 either side of 0)");
                    }
                }
                return null;
            }
            default: {
                if (!INT.matcher(v).matches()) {
                    return bad;
                }
                int bits = INT_BITS.get(dt);
                BigInteger limit = BigInteger.ONE.shiftLeft(bits - 1);
                String limits = range + limit.negate() + " to " + limit.subtract(BigInteger.ONE)
                    + ")";
                String digits = v.replaceFirst("^[+-]", "").replaceFirst("^0+", "");
                if (digits.length() > 20) {
                    return limits;  // beyond any MQTYPE_INT64
                }
                BigInteger value = new BigInteger(v.startsWith("+") ? v.substring(1) : v);
                return value.compareTo(limit.negate()) >= 0 && value.compareTo(limit) < 0
                    ? null : limits;
            }
        }
    }

    /** Python's str.strip(chars). */
    static String strip(String s, String chars) {
        int a = 0;
        int b = s.length();
        while (a < b && chars.indexOf(s.charAt(a)) >= 0) {
            a++;
        }
        while (b > a && chars.indexOf(s.charAt(b - 1)) >= 0) {
            b--;
        }
        return s.substring(a, b);
    }

    /** Python's s[:n] (in code points). */
    private static String prefix(String s, int n) {
        return s.codePointCount(0, s.length()) <= n ? s : s.substring(0, s.offsetByCodePoints(0, n));
    }

    /** Python's repr() of a str. */
    static String repr(String s) {
        return DumpMessage.pyRepr(s);
    }
}
