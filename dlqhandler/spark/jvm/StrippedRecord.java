/*
 * The drain's writer of a message without its dead-letter header, in the JVM (a Spark
 * Java UDF), for RETRY and FWD HEADER(NO) targets.
 *
 * call(record, format, encoding, ccsid) takes a common record (one DumpRecordDecoder
 * decodes; its line ends are "\n") and returns the dmpmqmsg text of the same message
 * with the MQDLH's 172 bytes removed from the data and the MQMD's Format, Encoding and
 * CodedCharSetId set to the MQDLH's: the A lines as read except FMT (blank padded to 8),
 * ENC and CCS, then X lines of 25 bytes in upper-case hex (a single "X " for no data),
 * as dlqhandler.formats.dmpmqmsg.DumpWriter writes them; every line ends with "\n".
 * It returns null for a record it does not recognise (the caller then formats it from
 * the decoded columns).
 */
package dlqhandler.spark;

import org.apache.spark.sql.api.java.UDF4;

public final class StrippedRecord implements UDF4<String, String, Integer, Integer, String> {
    private static final long serialVersionUID = 1L;

    private static final int A_LINES = 28;
    private static final int DLH_DIGITS = 2 * 172;
    private static final int WIDTH = 2 * 25;  // hex digits per X line

    @Override
    public String call(String record, String format, Integer encoding, Integer ccsid) {
        if (record == null || format == null || encoding == null || ccsid == null
                || format.length() > 8) {
            return null;
        }
        int len = record.length();
        StringBuilder out = new StringBuilder(len);
        int pos = 0;
        for (int i = 0; i < A_LINES; i++) {
            int end = record.indexOf('\n', pos);
            if (end < 0 || end - pos < 6 || record.charAt(pos) != 'A') {
                return null;
            }
            if (record.startsWith("A FMT ", pos)) {
                out.append("A FMT ").append(format);
                for (int pad = format.length(); pad < 8; pad++) {
                    out.append(' ');
                }
                out.append('\n');
            } else if (record.startsWith("A ENC ", pos)) {
                out.append("A ENC ").append(encoding.intValue()).append('\n');
            } else if (record.startsWith("A CCS ", pos)) {
                out.append("A CCS ").append(ccsid.intValue()).append('\n');
            } else {
                out.append(record, pos, end + 1);
            }
            pos = end + 1;
        }
        int skip = DLH_DIGITS;  // hex digits of the MQDLH still to drop
        int inLine = 0;  // digits written on the current X line
        boolean any = false;
        while (pos < len) {
            int end = record.indexOf('\n', pos);
            if (end < 0) {
                end = len;
            }
            if (end - pos < 2 || record.charAt(pos) != 'X' || record.charAt(pos + 1) != ' ') {
                return null;
            }
            for (int i = pos + 2; i < end; i++) {
                if (skip > 0) {
                    skip--;
                    continue;
                }
                if (inLine == WIDTH) {
                    out.append('\n');
                    inLine = 0;
                }
                if (inLine == 0) {
                    out.append("X ");
                }
                out.append(Character.toUpperCase(record.charAt(i)));
                inLine++;
                any = true;
            }
            pos = end + 1;
        }
        if (skip > 0) {
            return null;  // shorter than an MQDLH: not a record this writes
        }
        out.append(any ? "\n" : "X \n");
        return out.toString();
    }
}
