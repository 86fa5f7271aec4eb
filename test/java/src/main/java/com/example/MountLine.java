package com.example;

import io.github.cdkefskit.NfsMountOptions;
import io.github.cdkefskit.MountType;

/**
 * Calls the library through the Java binding's jsii runtime without synthesizing (which aws-cdk-lib
 * 2.263.0 cannot, see test/java/pom.xml): the fstab line EFS recommends for NFS, printed.
 */
public final class MountLine {
    public static void main(final String[] args) {
        System.out.println(NfsMountOptions.recommendedNfs().toFstabLine("fs-0123456789abcdef0.efs.us-east-1.amazonaws.com:/", "/mnt/efs", MountType.NFS4));
    }
}
