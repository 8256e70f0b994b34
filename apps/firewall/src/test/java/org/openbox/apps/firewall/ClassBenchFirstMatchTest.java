package org.openbox.apps.firewall;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openbox.protocol.match.FieldMatch;
import org.openbox.protocol.match.HeaderMatch;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;

/**
 * The firewall's translation of the 4560-rule ClassBench set, evaluated with the
 * protocol's header-match semantics, picks the same first rule for every header of the
 * ClassBench trace as the reference first-match file.
 */
class ClassBenchFirstMatchTest {
  @Test
  void translatedRulesGiveTheReferenceFirstMatch() throws Exception {
    Path data = Path.of(System.getProperty("openbox.data", "../../../shared/data"));
    Policy policy = new ClassBenchParser().parse(Files.readAllLines(data.resolve("fw-4560.classbench")),
        Action.ALLOW, Action.DROP);
    ObjectMapper json = new ObjectMapper();
    List<List<HeaderMatch>> rules = new ArrayList<>();
    for (FirewallRule r : policy.rules()) {
      List<HeaderMatch> alternatives = new ArrayList<>();
      for (Map<String, String> m : r.matches()) {
        alternatives.add(HeaderMatchParser.parse(json.valueToTree(m)));
      }
      rules.add(alternatives);
    }
    List<String> trace = Files.readAllLines(data.resolve("fw-4560.trace"));
    List<String> expected = Files.readAllLines(data.resolve("fw-4560.trace.firstmatch"));
    int checked = 0;
    for (int i = 0; i < trace.size(); i++) {
      String[] t = trace.get(i).split("\t");
      Map<MatchField, BigInteger> packet = new EnumMap<>(MatchField.class);
      int proto = Integer.parseInt(t[4]);
      packet.put(MatchField.ETH_TYPE, BigInteger.valueOf(0x0800));
      packet.put(MatchField.IP_PROTO, BigInteger.valueOf(proto));
      packet.put(MatchField.IPV4_SRC, new BigInteger(t[0]));
      packet.put(MatchField.IPV4_DST, new BigInteger(t[1]));
      if (proto == 6 || proto == 17) {
        packet.put(proto == 6 ? MatchField.TCP_SRC : MatchField.UDP_SRC, new BigInteger(t[2]));
        packet.put(proto == 6 ? MatchField.TCP_DST : MatchField.UDP_DST, new BigInteger(t[3]));
      }
      int want = Integer.parseInt(expected.get(i).split("\t")[0]);
      assertEquals(want, firstMatch(rules, packet), "trace line " + (i + 1));
      checked++;
    }
    System.out.printf("fw-4560: first match agrees on %d trace headers%n", checked);
  }

  private static int firstMatch(List<List<HeaderMatch>> rules, Map<MatchField, BigInteger> packet) {
    for (int r = 0; r < rules.size(); r++) {
      for (HeaderMatch m : rules.get(r)) {
        if (matches(m, packet)) {
          return r;
        }
      }
    }
    return -1;
  }

  private static boolean matches(HeaderMatch m, Map<MatchField, BigInteger> packet) {
    for (FieldMatch f : m.fields().values()) {
      BigInteger v = packet.get(f.field());
      if (v == null || !f.contains(v)) {
        return false;
      }
    }
    return true;
  }
}
