package com.example.ranges;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TestSolution {

    @Test
    void newSetIsEmpty() {
        IntervalSet set = new IntervalSet();
        assertEquals(0, set.intervalCount());
        assertEquals(0L, set.totalLength());
        assertEquals("", set.toString());
        assertFalse(set.contains(0));
    }

    @Test
    void halfOpenBounds() {
        IntervalSet set = new IntervalSet();
        set.add(3, 7);
        assertTrue(set.contains(3));
        assertTrue(set.contains(6));
        assertFalse(set.contains(7));
        assertFalse(set.contains(2));
        assertEquals(4L, set.totalLength());
    }

    @Test
    void overlappingAndTouchingIntervalsMerge() {
        IntervalSet set = new IntervalSet();
        set.add(10, 20);
        set.add(1, 5);
        set.add(5, 8);
        set.add(15, 25);
        assertEquals("[1,8) [10,25)", set.toString());
        set.add(7, 11);
        assertEquals("[1,25)", set.toString());
        assertEquals(1, set.intervalCount());
    }

    @Test
    void removeSplitsAnInterval() {
        IntervalSet set = new IntervalSet();
        set.add(0, 10);
        set.remove(3, 6);
        assertEquals("[0,3) [6,10)", set.toString());
        assertEquals(7L, set.totalLength());
        assertFalse(set.contains(3));
        assertTrue(set.contains(6));
    }

    @Test
    void removeAcrossSeveralIntervals() {
        IntervalSet set = new IntervalSet();
        set.add(0, 4);
        set.add(6, 8);
        set.add(10, 14);
        set.remove(2, 12);
        assertEquals("[0,2) [12,14)", set.toString());
        set.remove(-5, 100);
        assertEquals(0, set.intervalCount());
    }

    @Test
    void emptyRangesAreIgnoredAndReversedRangesRejected() {
        IntervalSet set = new IntervalSet();
        set.add(4, 4);
        assertEquals(0, set.intervalCount());
        assertThrows(IllegalArgumentException.class, () -> set.add(5, 2));
        assertThrows(IllegalArgumentException.class, () -> set.remove(5, 2));
    }

    @Test
    void lengthDoesNotOverflow() {
        IntervalSet set = new IntervalSet();
        set.add(Integer.MIN_VALUE, Integer.MAX_VALUE);
        assertEquals(4294967295L, set.totalLength());
        assertTrue(set.contains(0));
    }
}
