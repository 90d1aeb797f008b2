/*
 * The local file system (file:) for the drain's Spark session, without a process per chmod.
 *
 * Hadoop's RawLocalFileSystem sets the permission of every directory and file it creates
 * with NativeIO (libhadoop) or, when that native library is absent, as PySpark ships,
 * by forking `chmod`. A partitioned write creates a directory per target and input split
 * (and its task's temporary copies), so the drain spent most of its writing time forking
 * a JVM-sized process. This subclass sets the same permission bits through java.nio in
 * the process; everything else is Hadoop's own, and it writes no .crc side files
 * (fs.file.impl names it in place of the checksumming LocalFileSystem).
 */
package dlqhandler.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

public class NioLocalFileSystem extends RawLocalFileSystem {
    private static final PosixFilePermission[] BITS = {
        PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
        PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE,
        PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
        PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_READ};

    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
        short mode = permission.toShort();
        Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
        for (int i = 0; i < BITS.length; i++) {
            if ((mode & (1 << i)) != 0) {
                set.add(BITS[i]);
            }
        }
        try {
            Files.setPosixFilePermissions(pathToFile(p).toPath(), set);
        } catch (UnsupportedOperationException e) {
            super.setPermission(p, permission);  // not a POSIX file system: Hadoop's way
        }
    }
}
