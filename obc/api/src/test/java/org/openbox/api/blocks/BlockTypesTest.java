package org.openbox.api.blocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.openbox.api.match.Match;
import org.openbox.api.match.PayloadPattern;
import org.openbox.api.match.SessionMatch;
import org.openbox.catalogue.ArgDescriptor;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.openbox.protocol.match.MatchField;

/** The typed Java blocks and the catalogue (what the OBI implements) must never disagree. */
class BlockTypesTest {

    static final Catalogue CATALOGUE = Catalogue.load();

    @Test
    void everyCatalogueBlockHasExactlyOneTypedClass() {
        Set<String> classes =
                BlockTypes.ALL.stream().map(Class::getSimpleName).collect(Collectors.toCollection(TreeSet::new));
        Set<String> types =
                CATALOGUE.all().stream().map(BlockDescriptor::name).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(types, classes);
        assertEquals(BlockTypes.ALL.size(), classes.size(), "a class is listed twice");
    }

    @Test
    void everySetterWritesACatalogueArgumentOfTheRightTypeAndEveryArgumentHasOne() throws Exception {
        List<String> problems = new ArrayList<>();
        for (Class<? extends ProcessingBlock> c : BlockTypes.ALL) {
            BlockDescriptor d = CATALOGUE.find(c.getSimpleName()).orElseThrow();
            Constructor<?>[] ctors = c.getConstructors();
            assertEquals(1, ctors.length, c.getSimpleName() + " should have one public constructor");
            ProcessingBlock b = (ProcessingBlock) ctors[0].newInstance(samples(ctors[0].getParameterTypes(), true));
            assertEquals(d.name(), b.type());
            Set<String> written = new TreeSet<>(keys(b.config()));
            for (Method m : c.getMethods()) { // the generated setters and those of its Extension
                if (!Modifier.isPublic(m.getModifiers())
                        || Modifier.isStatic(m.getModifiers())
                        || m.getReturnType() != c) {
                    continue;
                }
                ObjectNode before = b.config();
                m.invoke(b, samples(m.getParameterTypes(), false));
                ObjectNode after = b.config();
                if (before.equals(after)) {
                    problems.add(c.getSimpleName() + "." + m.getName() + " writes nothing");
                }
                for (String k : keys(after)) {
                    if (!after.get(k).equals(before.get(k))) {
                        written.add(k);
                        if (d.arg(k).isEmpty()) {
                            problems.add(c.getSimpleName() + "." + m.getName() + " writes '" + k
                                    + "', not a catalogue argument");
                        }
                    }
                }
            }
            try {
                CATALOGUE.validate(b.toBlock());
            } catch (RuntimeException e) {
                problems.add(c.getSimpleName() + ": catalogue rejects what the setters wrote: " + e.getMessage());
            }
            Set<String> args =
                    d.config().stream().map(ArgDescriptor::name).collect(Collectors.toCollection(TreeSet::new));
            args.removeAll(written);
            if (!args.isEmpty()) {
                problems.add(c.getSimpleName() + ": no constructor parameter or setter for " + args);
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    private static List<String> keys(ObjectNode o) {
        List<String> out = new ArrayList<>();
        for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
            out.add(it.next());
        }
        return out;
    }

    /** Plausible values per parameter type; a String that is a valid mask, regex and name at once. */
    private static Object[] samples(Class<?>[] types, boolean constructor) {
        Object[] out = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            Class<?> t = types[i];
            out[i] = t == String.class
                    ? (constructor && i == 0 ? "b1" : "255.0.0.0")
                    : t == int.class
                            ? 1
                            : t == long.class
                                    ? 1L
                                    : t == double.class
                                            ? 2.0
                                            : t == boolean.class
                                                    ? Boolean.TRUE
                                                    : t == MatchField.class
                                                            ? MatchField.IPV4_SRC
                                                            : t == Match.class
                                                                    ? Match.of().ipv4Src("10.0.0.1")
                                                                    : t == SessionMatch.class
                                                                            ? SessionMatch.value("k", "1")
                                                                            : t == String[].class
                                                                                    ? new String[] {"255.0.0.0"}
                                                                                    : t == double[].class
                                                                                            ? new double[] {1.0}
                                                                                            : t == byte[].class
                                                                                                    ? new byte[] {1}
                                                                                                    : t
                                                                                                                    == PayloadPattern
                                                                                                                                    []
                                                                                                                            .class
                                                                                                            ? new PayloadPattern
                                                                                                                    [] {
                                                                                                                PayloadPattern
                                                                                                                        .regex(
                                                                                                                                "x")
                                                                                                            }
                                                                                                            : unsupported(
                                                                                                                    t);
        }
        return out;
    }

    private static Object unsupported(Class<?> t) {
        throw new AssertionError("no sample value for parameter type " + t);
    }

    @Test
    void typeNamesComeFromTheClass() {
        assertEquals("HeaderClassifier", new HeaderClassifier("x").type());
        assertNotEquals(new Discard("a").toBlock(), new Discard("b").toBlock());
        assertEquals("Sampler", new CustomBlock("Sampler", "s").toBlock().type());
    }
}
