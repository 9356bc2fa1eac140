// SignetJavaProbe: Java's own PKCS#11 provider (SunPKCS11), unchanged, on
// libsignet-pkcs11.so. It logs in through the provider's KeyStore, makes an
// EC P-256 and an RSA-2048 key pair on the token, signs with each through
// java.security.Signature, verifies in software (SunEC / SunRsaSign) with
// the public key read back from the token, and writes message, signature
// and public key (X.509 DER) to OUT_DIR for pkcs11_java_test to check with
// the openssl tool. Prints one line per key; exits non-zero on any failure.
// usage: java SignetJavaProbe.java MODULE PIN OUT_DIR   (daemon: SIGNET_SOCKET)
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.Provider;
import java.security.Security;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;

public class SignetJavaProbe {
  public static void main(String[] args) throws Exception {
    String module = args[0];
    char[] pin = args[1].toCharArray();
    Path out = Path.of(args[2]);
    // "--" makes the argument the configuration itself, not a file name.
    Provider signet =
        Security.getProvider("SunPKCS11").configure("--name=signet\nlibrary=" + module + "\n");
    KeyStore store = KeyStore.getInstance("PKCS11", signet);
    store.load(null, pin);  // C_Login as the user
    System.out.println("provider " + signet.getName() + " logged in");

    String[][] cases = {
      {"EC", "SHA256withECDSA", "SunEC"},
      {"RSA", "SHA256withRSA", "SunRsaSign"},
    };
    for (String[] c : cases) {
      KeyPairGenerator generator = KeyPairGenerator.getInstance(c[0], signet);
      if (c[0].equals("EC")) {
        generator.initialize(new ECGenParameterSpec("secp256r1"));
      } else {
        generator.initialize(2048);
      }
      KeyPair pair = generator.generateKeyPair();
      byte[] message =
          ("signed on signet through SunPKCS11, " + c[0]).getBytes(StandardCharsets.UTF_8);

      Signature signer = Signature.getInstance(c[1], signet);
      signer.initSign(pair.getPrivate());
      signer.update(message);
      byte[] signature = signer.sign();

      Signature checker = Signature.getInstance(c[1], c[2]);
      checker.initVerify(pair.getPublic());
      checker.update(message);
      if (!checker.verify(signature)) {
        throw new IllegalStateException(c[0] + " signature does not verify in " + c[2]);
      }
      Files.write(out.resolve(c[0] + ".msg"), message);
      Files.write(out.resolve(c[0] + ".sig"), signature);
      Files.write(out.resolve(c[0] + ".pub.der"), pair.getPublic().getEncoded());
      System.out.println(c[0] + " key pair made on the token, signed, verified by " + c[2]);
    }
  }
}
